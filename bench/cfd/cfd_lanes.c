/* Times compute_step_factor and compute_flux (Rodinia cfd) of one lanes
   object (its header `cfd.h` from `lanes build --header`): nelr cells, neighbours nearby with a few wing/far-field faces. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cfd.h"

#define NNB 4
#define NVAR 5

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int nelr = 97152, reps = argc > 1 ? atoi(argv[1]) : 21;
    float *variables = malloc(sizeof(float) * NVAR * nelr);
    float *areas = malloc(sizeof(float) * nelr);
    float *step = malloc(sizeof(float) * nelr);
    float *normals = malloc(sizeof(float) * 3 * NNB * nelr);
    float *fluxes = malloc(sizeof(float) * NVAR * nelr);
    int *ese = malloc(sizeof(int) * NNB * nelr);
    float ffv[NVAR] = {1.4f, 0.3f, 0.1f, 0.05f, 2.5f};
    FLOAT3 ffde = {1, 2, 3}, ffx = {0.5f, 0.1f, 0.2f}, ffy = {0.1f, 0.7f, 0.3f}, ffz = {0.2f, 0.3f, 0.9f};
    srand(1);
    for (int i = 0; i < nelr; i++) {
        variables[i] = 1.0f + (rand() % 1000) / 1000.0f;
        for (int d = 1; d <= 3; d++)
            variables[i + d * nelr] = (rand() % 1000) / 2000.0f - 0.25f;
        variables[i + 4 * nelr] = 2.0f + (rand() % 1000) / 1000.0f;
        areas[i] = 0.5f + (rand() % 100) / 100.0f;
        for (int j = 0; j < NNB; j++) {
            int r = rand() % 1000;
            int nb = r < 5 ? -1 : r < 10 ? -2 : (i + (rand() % 64) - 32 + nelr) % nelr;
            ese[i + j * nelr] = nb;
            for (int d = 0; d < 3; d++)
                normals[i + (j + d * NNB) * nelr] = (rand() % 1000) / 1000.0f - 0.5f;
        }
    }
    lanes_range r = {1, {0, 0, 0}, {nelr, 1, 1}, {0, 0, 0}};
    double ts[256], tf[256];
    for (int k = 0; k < reps; k++) {
        double t0 = now();
        compute_step_factor(variables, areas, step, nelr, &r);
        double t1 = now();
        compute_flux(ese, normals, variables, ffv, fluxes, &ffde, &ffx, &ffy, &ffz, nelr, &r);
        double t2 = now();
        ts[k] = t1 - t0;
        tf[k] = t2 - t1;
    }
    qsort(ts, reps, sizeof(double), cmp);
    qsort(tf, reps, sizeof(double), cmp);
    double sum = 0;
    for (int i = 0; i < nelr; i++) sum += step[i] + fluxes[i] + fluxes[i + 4 * nelr];
    printf("step_factor %.3f ms  flux %.3f ms  (checksum %.6g)\n", ts[reps / 2] * 1e3, tf[reps / 2] * 1e3, sum);
    return 0;
}
