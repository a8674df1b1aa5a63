// enum_modes.cl - element-wise combination of two arrays whose operation is
// chosen by an enum argument, as the SDK samples write their modes:
// enumerators with implicit and explicit values, an `enum` type used for a
// parameter and a local, enumerators in `case` labels and in a constant
// expression (an array size).
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: a, b and out have n floats; mode is any int (unknown modes copy a).

enum CombineMode {
    MODE_ADD,
    MODE_MUL,
    MODE_MAX = 4,
    MODE_LAST
};

typedef enum { WEIGHT_LOW = 1, WEIGHT_HIGH = 3 } Weight;

__kernel void combine(__global const float *a, __global const float *b,
                      __global float *out, enum CombineMode mode, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;
    float weights[MODE_LAST - MODE_MAX + 1] = { WEIGHT_LOW, WEIGHT_HIGH };
    Weight w = i % 2 ? WEIGHT_HIGH : WEIGHT_LOW;
    enum CombineMode m = mode;
    float r;
    switch (m) {  //~ branch: uniform
    case MODE_ADD:
        r = a[i] + b[i];
        break;
    case MODE_MUL:
        r = a[i] * b[i];
        break;
    case MODE_MAX:
        r = fmax(a[i], b[i]) * weights[w == WEIGHT_HIGH];
        break;
    default:
        r = a[i];
        break;
    }
    out[i] = r;  //~ access: out[i]=store:contiguous
}
