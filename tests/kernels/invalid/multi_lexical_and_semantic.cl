// Several independent errors of different phases in one file: an invalid
// token and a syntax error in one kernel, then semantic errors in the
// kernels after it (a redefinition, a non-constant case label, recursion).

__kernel void lexical(__global int *x, int n)
{
    int i = get_global_id(0);
    int big = 0x1g;                                 //~ error[L0002]
    x[i] = big +;                                   //~ error[L0001]
}

__kernel void semantic(__global int *x, int n, int mode)
{
    int i = get_global_id(0);
    int i = 0;                                      //~ error[L0005]
    switch (x[i]) {
    case mode:                                      //~ error[L0023]
        x[i] = 1;
        break;
    default:
        x[i] = 2;
    }
}

int collatz_steps(int v)
{
    if (v <= 1)
        return 0;
    return 1 + collatz_steps((v & 1) ? 3 * v + 1 : v / 2); //~ error[L0021]
}

__kernel void calls_recursive(__global int *x)
{
    int i = get_global_id(0);
    x[i] = collatz_steps(x[i] & 1023);
}
