// L0024: invalid declarations: a variable of type void, long long (a
// type name reserved by OpenCL C, which clang nevertheless accepts),
// unsigned float, short float, an array of negative size, and two base
// types in one declaration.

__kernel void decls(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    void nothing;                   //~ error[L0024]
    long long big = 0;              //~ error[L0024]
    unsigned float uf = 1.0f;       //~ error[L0024]
    short float sf = 2.0f;          //~ error[L0024]
    float neg[-1];                  //~ error[L0024]
    int float both = 3;             //~ error[L0024]
    x[i] = 0.0f;
}
