// L0009: no such field, and invalid swizzles: an unknown component letter,
// a component beyond the vector's length, a numeric component beyond it,
// mixing .xyzw and .sN, and unknown struct fields by value and through a
// pointer.

typedef struct {
    float x;
    float y;
} Point;

__kernel void members(__global float4 *v, __global Point *pts,
                      __global float2 *h, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 a = v[i];
    float2 b = a.xq;                //~ error[L0009]
    float c = h[i].z;               //~ error[L0009]
    float d = a.s9;                 //~ error[L0009]
    float2 e = a.xs1;               //~ error[L0009]
    Point p = pts[i];
    float f = p.nofield;            //~ error[L0009]
    float g = pts[i].z;             //~ error[L0009]
    float k = (pts + i)->w;         //~ error[L0009]
    v[i] = (float4)(b, c + d, f + g + k) + (float4)(e, e);
}
