// L0014: function-like macros invoked with the wrong number of arguments.
// The invalid invocation expands to nothing usable: no follow-up error for
// the macro name, and the declaration still declares its variable.

#define SQ(x) ((x) * (x))
#define MAD3(a, b, c) ((a) * (b) + (c))
#define ZERO() 0.0f

__kernel void macros(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float a = SQ(x[i], 2.0f);          //~ error[L0014]
    float b = MAD3(x[i], 2.0f);        //~ error[L0014]
    float c = ZERO(1);                 //~ error[L0014]
    x[i] = a + b + c + SQ(x[i]) + MAD3(a, b, c);
}
