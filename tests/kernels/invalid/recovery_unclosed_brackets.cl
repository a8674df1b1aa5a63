// Half-typed code: parentheses and brackets that were opened but not
// closed. A missing `)` or `]` is reported at the end of the token before
// the place it was expected; the statement is then finished at its `;` (or
// the `if` body at its `{`) and the code after it is checked.

__kernel void unclosed(__global float *out, __global const float *in, int n)
{
    int i = get_global_id(0);
    float a = fmax(in[i], 0.0f;                     //~ error[L0001]
    float b = (in[i] * 2.0f;                        //~ error[L0001]
    if (a > b {                                     //~ error[L0001]
        out[i] = a;
    }
    out[i = b;                                      //~ error[L0001]
    out[i] += b * missing_name;                     //~ error[L0003]
}
