// Half-typed code: expressions left unfinished while typing. "expected an
// expression" is reported at the token where the expression should have
// started (clang's caret), which is on the next line when the unfinished
// line ends with an operator. The parser resynchronises at the next
// statement, so the later statements are still checked (the undeclared
// names below are reported), and so is the next kernel.

__kernel void typing(__global float *out, __global const float *in, int n)
{
    int i = get_global_id(0);
    float x = in[i] +
    if (i >= n)                                     //~ error[L0001]
        return;
    out[i] = in[i] * undeclared_gain;               //~ error[L0003]
    float y = in[i] * ;                             //~ error[L0001]
    out[i] += missing_offset;                       //~ error[L0003]
    out[i] = fmin(in[i], );                         //~ error[L0001]
    out[i] -= 1.0f;
}

__kernel void next_kernel(__global float *out)
{
    int j = get_global_id(0);
    out[j] = still_checked;                         //~ error[L0003]
}
