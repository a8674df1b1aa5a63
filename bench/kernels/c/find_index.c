/* Rodinia particle filter's find_index_kernel as plain C, particles i in [lo, hi). */
void find_index_kernel(float *arrayX, float *arrayY, float *CDF, float *u, float *xj,
                       float *yj, float *weights, int Nparticles, int lo, int hi)
{
    (void)weights;
    if (hi > Nparticles)
        hi = Nparticles;
    for (int i = lo; i < hi; i++) {
        int index = -1;
        for (int x = 0; x < Nparticles; x++) {
            if (CDF[x] >= u[i]) {
                index = x;
                break;
            }
        }
        if (index == -1)
            index = Nparticles - 1;
        xj[i] = arrayX[index];
        yj[i] = arrayY[index];
    }
}
