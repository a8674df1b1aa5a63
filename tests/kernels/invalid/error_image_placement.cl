// Images exist only as function parameters and samplers as parameters or
// constants (clang: "the '__read_only image2d_t' type cannot be used to
// declare a structure or union field", "type ... can only be used as a
// function parameter in OpenCL", "pointer to type ... is invalid in
// OpenCL", "global sampler requires a const or constant address space
// qualifier", "access qualifier can only be used for pipe and image type").
//
// Launch: 2-D over the image, global = (width, height).

struct Layer {
    image2d_t img;                                           //~ error[L0024]
    float weight;
};

sampler_t plain = CLK_FILTER_NEAREST;                        //~ error[L0024]

float4 fetch(read_only image2d_t *img, int2 at);             //~ error[L0024]

__kernel void blend(__read_only image2d_t a,
                    __write_only image2d_t out,
                    read_only float scale)                   //~ error[L0024]
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    image2d_t current = a;                                   //~ error[L0024]
    write_imagef(out, (int2)(x, y), (float4)(scale));
}
