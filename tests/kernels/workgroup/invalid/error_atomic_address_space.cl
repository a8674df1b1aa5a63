// Atomics work on __global and __local memory only: an atomic on a
// private variable or on __constant memory is an invalid address space
// (L0016), as in clang ("no matching function").

__kernel void private_counter(__global const int *in, __global int *out)
{
    int count = 0;
    if (in[get_global_id(0)] > 0)
        atomic_inc(&count);  //~ error[L0016]
    out[get_global_id(0)] = count;
}

__kernel void constant_counter(__constant int *table, __global int *out)
{
    out[get_global_id(0)] = atomic_add(&table[0], 1);  //~ error[L0016]
}
