// L0002: invalid tokens: malformed numbers (lexed as pp-numbers and
// rejected when classified), a stray character, an unterminated comment.
// An invalid token is reported once and otherwise skipped; a declaration
// whose initializer is a malformed number still declares its name.

__kernel void numbers(__global float *x, __global int *y, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int a = 12abc;                   //~ error[L0002]
    int b = 0x;                      //~ error[L0002]
    int c = 089;                     //~ error[L0002]
    float d = 1e;                    //~ error[L0002]
    float e = 2.0ff;                 //~ error[L0002]
    y[i] = a + b + c;
    x[i] = d + e;
}

__kernel void stray(__global float *x)
{
    int i = get_global_id(0);
    x[i] = 1.0f; @                   //~ error[L0002]
    x[i] += 2.0f; `                  //~ error[L0002]
}

/* an unterminated comment runs to the end of the file //~ error[L0002]
__kernel void hidden(__global float *x)
{
    x[0] = 0.0f;
}
