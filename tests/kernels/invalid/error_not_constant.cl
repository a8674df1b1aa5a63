// L0023: case labels that are not integer constant expressions: a kernel
// argument, a local variable, a call, a float constant. Constant folding
// of literal arithmetic is fine.

__kernel void modes(__global int *x, int n, int mode)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int limit = 4;
    switch (x[i] & 15) {
    case mode:                      //~ error[L0023]
        x[i] = 0;
        break;
    case limit:                     //~ error[L0023]
        x[i] = 1;
        break;
    case get_global_id(0):          //~ error[L0023]
        x[i] = 3;
        break;
    case 1.5f:                      //~ error[L0023]
        x[i] = 4;
        break;
    case 2 * 3 + 1:
        x[i] = 7;
        break;
    default:
        break;
    }
}
