// Attribute arguments are constant expressions evaluated after
// preprocessing; each mistake is reported at the argument, in clang's
// words: not an integer constant (L0023), zero, negative, too large, the
// wrong number of arguments, not a power of two, not a vectorizable type,
// a kernel attribute on a helper function (L0024).

#define BLOCK_SIZE 16
#define LOG2_ALIGN 3

__kernel __attribute__((reqd_work_group_size(get_local_size(0), 1, 1)))    //~ error[L0023]
void not_constant(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE / 2.0f, 1, 1)))    //~ error[L0023]
void not_integer(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, BLOCK_SIZE - 16, 1)))    //~ error[L0024]
void zero(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel __attribute__((work_group_size_hint(BLOCK_SIZE - 32, 1, 1)))    //~ error[L0024]
void negative(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel __attribute__((work_group_size_hint(1ul << 32, 1, 1)))    //~ error[L0024]
void too_large(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1)))    //~ error[L0024]
void two_arguments(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel __attribute__((vec_type_hint(bool)))    //~ error[L0024]
void bool_hint(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1)))    //~ error[L0024]
float twice(float v)
{
    return 2.0f * v;
}

__kernel void alignments(__global float *x)
{
    __local float a[BLOCK_SIZE] __attribute__((aligned(3 << LOG2_ALIGN)));    //~ error[L0024]
    __local float b[BLOCK_SIZE] __attribute__((aligned(1.0f)));    //~ error[L0023]
    int lid = get_local_id(0);
    a[lid] = x[get_global_id(0)];
    b[lid] = twice(a[lid]);
    x[get_global_id(0)] = b[lid];
}
