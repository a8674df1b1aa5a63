// Several independent errors in consecutive statements of one kernel, each
// with a different code; every statement is checked on its own.

typedef struct {
    float gain;
    int steps;
} Config;

float weight(float d)
{
    return exp(-d * d);
}

__kernel void many_mistakes(__global float *x, __global float4 *v,
                            __constant float *table, Config cfg, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float a = x[i] * cfg.gian;                      //~ error[L0009]
    float b = wieght(a);                            //~ error[L0003]
    float4 c = v[i] + (int4)(1);                    //~ error[L0004]
    table[i] = a;                                   //~ error[L0008]
    float d = cfg.steps(2);                         //~ error[L0020]
    int4 e = (int4)v[i];                            //~ error[L0015]
    __global float *g = table;                      //~ error[L0016]
    float h = weight(a, b);                         //~ error[L0006]
    float k = clz(a);                               //~ error[L0007]
    x[i] = a + b + c.x + d + (float)e.y + g[0] + h + k;
}
