// L0912: enumerations are not supported yet. The enum definition is
// reported; its enumerators are still declared as int constants, so the
// case labels that use them are neither undeclared nor non-constant.
// Otherwise valid OpenCL C (use #define or __constant int instead).
//
// Launch: 1-D, global = round_up(n).

enum Op {                                           //~ error[L0912]
    OP_ADD,
    OP_MUL,
    OP_MAX
};

__kernel void combine(__global float *a, __global const float *b, int op, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    switch (op) {
    case OP_ADD:
        a[i] += b[i];
        break;
    case OP_MUL:
        a[i] *= b[i];
        break;
    case OP_MAX:
        a[i] = fmax(a[i], b[i]);
        break;
    default:
        break;
    }
}
