// A struct passed by value to a kernel. The generated code receives a
// pointer to the struct (docs/codegen.md, "ABI"); inside the kernel its
// fields are uniform values like any other argument.
//
// Launch: 1-D, one work-item per element of out.
typedef struct {
    float x;
    float y;
} Point;

__kernel void shift(__global float *out, Point p)
{
    int i = get_global_id(0);  //~ shape: contiguous
    out[i] = p.x + p.y * i;  //~ access: out[i]=store:contiguous
}
