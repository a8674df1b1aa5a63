// L0021: recursion, which OpenCL C forbids: a helper calling itself, and
// two helpers calling each other. Each cycle of the call graph is reported
// once, at the call that closes it; calls into the cycle from outside are not
// reported.

int fact(int k)
{
    if (k <= 1)
        return 1;
    return k * fact(k - 1);         //~ error[L0021]
}

int is_even(int k);

int is_odd(int k)
{
    return k == 0 ? 0 : is_even(k - 1); //~ error[L0021]
}

int is_even(int k)
{
    return k == 0 ? 1 : is_odd(k - 1);
}

__kernel void recursive(__global int *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = fact(x[i] & 7) + is_even(x[i] & 15);
}
