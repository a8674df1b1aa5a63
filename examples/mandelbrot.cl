// mandelbrot.cl - the Mandelbrot set, one work-item per pixel.
//
// Launch: a 2-D NDRange, dimension 0 over the columns (px), dimension 1 over
// the rows (py); global sizes may be rounded up.
//   iterations   width * height uints, row-major: the escape time of each
//                pixel, or max_iter for points inside the set
//   pixel (px, py) is the point c = (x_min + px * step, y_min + py * step)
//
// Under lanes, py (dimension 1) is uniform in a SIMD group and px
// contiguous. The `while` loop stops when a point escapes, which happens
// at different iterations in different lanes: a divergent loop. The SIMD
// group keeps iterating, with the finished lanes masked off, until every
// lane has escaped or reached max_iter; this is why groups on the border
// of the set cost as much as their slowest pixel.

__kernel void mandelbrot(__global uint *iterations, int width, int height,
                         float x_min, float y_min, float step, uint max_iter)
{
    int px = get_global_id(0);  //~ shape: contiguous
    int py = get_global_id(1);  //~ shape: uniform
    if (px >= width || py >= height)
        return;

    float cr = x_min + px * step;  //~ shape: varying
    float ci = y_min + py * step;  //~ shape: uniform

    // z = z^2 + c until |z| > 2 (|z|^2 > 4) or max_iter iterations.
    float zr = 0.0f;
    float zi = 0.0f;
    uint it = 0;  //~ shape: varying
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {  //~ loop: divergent //~ warning[L0201]
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }

    iterations[py * width + px] = it;  //~ access: iterations[py * width + px]=store:contiguous
}
