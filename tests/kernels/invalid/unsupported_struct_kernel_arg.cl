// A struct passed by value to a kernel: valid OpenCL C, but the vectorizer
// does not lower it yet (the ABI of DESIGN §3 does not define it).
typedef struct {
    float x;
    float y;
} Point;

__kernel void shift(__global float *out, Point p) //~ error[L0920]
{
    int i = get_global_id(0);
    out[i] = p.x + p.y;
}
