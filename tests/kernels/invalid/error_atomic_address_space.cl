// An atomic needs memory shared by the work-items: a pointer to __global
// or __local memory. On a private variable (or __constant memory) it is an
// address-space error at the pointer argument.

__kernel void count_private(__global int *out, __constant int *limits)
{
    int mine = 0;
    atomic_inc(&mine);                              //~ error[L0016]
    int k = atomic_add(limits, 1);                  //~ error[L0016]
    out[get_global_id(0)] = mine + k;
}
