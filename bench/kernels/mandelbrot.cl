// mandelbrot.cl - escape-time Mandelbrot set: for each pixel, the number of
// iterations of z = z^2 + c (at most max_iter) before |z| > 2.
//
// Launch: 2-D NDRange, dimension 0 over px, dimension 1 over py:
//   global = (round_up(width), round_up(height)); items outside return.
// Arguments: iterations is a width x height row-major uint image; pixel
//   (px, py) maps to c = (x_min + px * step, y_min + py * step).
//
// The while loop has a data-dependent trip count: a divergent loop with two
// exits (the uniform bound max_iter and the varying escape test).

__kernel void mandelbrot(__global uint *iterations, int width, int height,
                         float x_min, float y_min, float step, uint max_iter)
{
    int px = get_global_id(0);
    int py = get_global_id(1);
    if (px >= width || py >= height)
        return;

    float cr = x_min + px * step;
    float ci = y_min + py * step;
    float zr = 0.0f;
    float zi = 0.0f;
    uint it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    iterations[py * width + px] = it;
}
