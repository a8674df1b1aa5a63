// L0006: calls of helper functions with too many or too few arguments.

float lerp3(float a, float b, float t)
{
    return a + (b - a) * t;
}

void store(__global float *p, int i, float v)
{
    p[i] = v;
}

float unit(void)
{
    return 1.0f;
}

__kernel void calls(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float a = lerp3(x[i], 1.0f, 0.5f, 2.0f);   //~ error[L0006]
    float b = lerp3(x[i], 1.0f);               //~ error[L0006]
    store(x, i);                               //~ error[L0006]
    float c = unit(a);                         //~ error[L0006]
    store(x, i, a + b + c);
}
