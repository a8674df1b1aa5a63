// L0012: #endif, #else and #elif without a matching #if. Each is reported
// and ignored; the code around them is unaffected.

#define WIDTH 4

__kernel void first(__global float *x)
{
    x[get_global_id(0)] = WIDTH;
}

#endif
//~^ error[L0012]

__kernel void second(__global float *x)
{
    x[get_global_id(0)] = 2 * WIDTH;
}

#else
//~^ error[L0012]
#elif WIDTH > 2
//~^ error[L0012]
