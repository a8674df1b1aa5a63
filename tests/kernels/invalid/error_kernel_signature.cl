// L0017: invalid kernel signatures: a non-void return type, and parameters
// of types a kernel cannot take (bool, size_t, a pointer to a pointer, a
// pointer into __private memory). OpenCL C 2.0 (and so clang with
// -cl-std=CL2.0) allows pointers to pointers in kernel arguments; lanes
// follows OpenCL C 1.2 there.

__kernel int returns_value(__global float *x) //~ error[L0017]
{
    x[get_global_id(0)] = 0.0f;
    return 0;
}

__kernel void takes_bool(__global float *x, bool flag) //~ error[L0017]
{
    x[get_global_id(0)] = flag ? 1.0f : 0.0f;
}

__kernel void takes_size(__global float *x, size_t n) //~ error[L0017]
{
    size_t i = get_global_id(0);
    if (i < n)
        x[i] = 2.0f;
}

__kernel void takes_ptr_ptr(__global float *__global *x) //~ error[L0017]
{
    x[0][get_global_id(0)] = 3.0f;
}

__kernel void takes_private_ptr(__private float *p) //~ error[L0017]
{
    p[0] = 4.0f;
}
