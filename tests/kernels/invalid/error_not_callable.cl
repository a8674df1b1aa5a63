// L0020: calling something that is not a function: an int parameter, an
// array element, a struct field, a local vector.

typedef struct {
    float scale;
} Params;

__kernel void calls(__global float *x, int n, Params prm)
{
    int i = get_global_id(0);
    float4 v = (float4)(1.0f);
    int a = n(3);                   //~ error[L0020]
    float b = x[i](1.0f);           //~ error[L0020]
    float c = prm.scale(2.0f);      //~ error[L0020]
    float d = v(0);                 //~ error[L0020]
    x[i] = (float)a + b + c + d;
}
