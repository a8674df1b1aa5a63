// L0100 (a warning): a macro redefined with a different body. The new
// definition is used from there on. Redefining a macro with an identical
// body is allowed and not reported; #undef before #define is the clean way.

#define BLOCK 16
#define BLOCK 16
#define BLOCK 32
//~^ warning[L0100]

#define SCALE 2.0f
#undef SCALE
#define SCALE 4.0f

__kernel void blocked(__global float *x, int n)
{
    int i = get_global_id(0) * BLOCK;
    for (int k = 0; k < BLOCK && i + k < n; k++) //~ warning[L0201]
        x[i + k] *= SCALE; //~ warning[L0204]
}
