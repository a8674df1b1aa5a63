// L0018: break, continue, case and default outside the statements they
// belong to.

__kernel void jumps(__global int *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        break;                      //~ error[L0018]
    if (x[i] < 0)
        continue;                   //~ error[L0018]
    switch (x[i] & 3) {
    case 0:
        x[i] = 1;
        continue;                   //~ error[L0018]
    default:
        break;
    }
    case 1:                         //~ error[L0018]
        x[i] = 2;
    default:                        //~ error[L0018]
        x[i] += 3;
}
