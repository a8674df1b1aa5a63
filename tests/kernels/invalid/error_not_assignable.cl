// L0008: assignments to things that cannot be assigned: a const local, a
// const parameter, an rvalue, a call result, the pointee of a const
// pointer, __constant memory, an array, and ++ on a const.

__constant float weights[3] = { 0.25f, 0.5f, 0.25f };

__kernel void assign(__global float *x, const int n, __global const float *ro)
{
    int i = get_global_id(0);
    const float scale = 2.0f;
    float arr[2] = { 0.0f, 1.0f };
    float other[2] = { 2.0f, 3.0f };

    scale = 3.0f;                   //~ error[L0008]
    n = 5;                          //~ error[L0008]
    (x[i] + 1.0f) = 0.0f;           //~ error[L0008]
    get_global_id(0) = 0;           //~ error[L0008]
    ro[i] = 1.0f;                   //~ error[L0008]
    weights[0] = 1.0f;              //~ error[L0008]
    arr = other;                    //~ error[L0008]
    scale++;                        //~ error[L0008]
    x[i] = scale * arr[0] + weights[1] + ro[i];
}
