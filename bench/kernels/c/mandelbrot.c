/* Escape-time Mandelbrot as plain C, rows py in [lo, hi). */
void mandelbrot(unsigned *iterations, int width, int height, float x_min, float y_min,
                float step, unsigned max_iter, int lo, int hi)
{
    if (hi > height)
        hi = height;
    for (int py = lo; py < hi; py++) {
        float ci = y_min + py * step;
        for (int px = 0; px < width; px++) {
            float cr = x_min + px * step;
            float zr = 0.0f, zi = 0.0f;
            unsigned it = 0;
            while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                it++;
            }
            iterations[py * width + px] = it;
        }
    }
}
