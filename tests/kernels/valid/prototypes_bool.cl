// prototypes_bool.cl - NVIDIA-SDK-style file with the helpers declared at
// the top and defined after the kernel that calls them, `true`/`false`
// (keywords of type bool in OpenCL C) and `__const` (GCC's spelling of
// `const`, which clang accepts) on parameters and locals.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: data has n floats; flags has n ints.

float clampToUnit(float x);
static bool isNegative(__const float x);
void markFlag(__global int *flags, int i, bool value);

__kernel void clampAndFlag(__global float *data, __global int *flags, __const int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;
    __const float x = data[i];
    bool negative = false;
    if (isNegative(x))  //~ branch: divergent
        negative = true;
    data[i] = clampToUnit(x);
    markFlag(flags, i, negative == true);
}

float clampToUnit(float x)
{
    return clamp(x, 0.0f, 1.0f);
}

static bool isNegative(__const float x)
{
    return x < 0.0f ? true : false;
}

void markFlag(__global int *flags, int i, bool value)
{
    flags[i] = value;
}
