// L0001: the closing brace of the last kernel is missing; the error sits
// on the last line of the file (after its last token).

__kernel void fill(__global float *x, float v, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        x[i] = v;
    }                                //~ error[L0001]
