// L0005: redefinitions: a helper defined twice, a struct defined twice, a
// kernel with two parameters of the same name, two variables of the same
// name in one scope, two kernels with the same name. The first definition
// stays in effect.

float twice(float x)
{
    return 2.0f * x;
}

float twice(float x)                       //~ error[L0005]
{
    return x + x;
}

struct Pair {
    int a;
    int b;
};

struct Pair {                              //~ error[L0005]
    int a;
};

__kernel void params(__global float *x, int n, int n) //~ error[L0005]
{
    int i = get_global_id(0);
    float v = x[i];
    int v = 3;                             //~ error[L0005]
    {
        float w = twice(v);
        float w = 0.0f;                    //~ error[L0005]
        x[i] = w;
    }
}

__kernel void dup(__global float *x)
{
    x[get_global_id(0)] = 0.0f;
}

__kernel void dup(__global float *x)       //~ error[L0005]
{
    x[get_global_id(0)] = 1.0f;
}
