/* Times Rodinia cfd's compute_step_factor and compute_flux under PoCL with
   the inputs of cfd_lanes.c (one pinned thread: POCL_MAX_PTHREAD_COUNT=1). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NNB 4
#define NVAR 5
#define CK(e) do { cl_int _e = (e); if (_e) { fprintf(stderr, "%s: %d\n", #e, _e); exit(1); } } while (0)

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
typedef struct { float x, y, z; } F3;

int main(int argc, char **argv) {
    int nelr = 97152, reps = argc > 2 ? atoi(argv[2]) : 21;
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
    char *src = malloc(n + 1); fread(src, 1, n, f); src[n] = 0; fclose(f);
    size_t sz[] = {NVAR, 1, 1, 3 * NNB, NVAR};
    float *variables = malloc(sizeof(float) * NVAR * nelr), *areas = malloc(sizeof(float) * nelr);
    float *normals = malloc(sizeof(float) * 3 * NNB * nelr);
    int *ese = malloc(sizeof(int) * NNB * nelr);
    float ffv[NVAR] = {1.4f, 0.3f, 0.1f, 0.05f, 2.5f};
    F3 ffde = {1, 2, 3}, ffx = {0.5f, 0.1f, 0.2f}, ffy = {0.1f, 0.7f, 0.3f}, ffz = {0.2f, 0.3f, 0.9f};
    srand(1);
    for (int i = 0; i < nelr; i++) {
        variables[i] = 1.0f + (rand() % 1000) / 1000.0f;
        for (int d = 1; d <= 3; d++) variables[i + d * nelr] = (rand() % 1000) / 2000.0f - 0.25f;
        variables[i + 4 * nelr] = 2.0f + (rand() % 1000) / 1000.0f;
        areas[i] = 0.5f + (rand() % 100) / 100.0f;
        for (int j = 0; j < NNB; j++) {
            int r = rand() % 1000;
            int nb = r < 5 ? -1 : r < 10 ? -2 : (i + (rand() % 64) - 32 + nelr) % nelr;
            ese[i + j * nelr] = nb;
            for (int d = 0; d < 3; d++) normals[i + (j + d * NNB) * nelr] = (rand() % 1000) / 1000.0f - 0.5f;
        }
    }
    (void)sz;
    cl_platform_id p; cl_device_id d; cl_int e;
    CK(clGetPlatformIDs(1, &p, NULL)); CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_context cx = clCreateContext(NULL, 1, &d, NULL, NULL, &e); CK(e);
    cl_command_queue q = clCreateCommandQueue(cx, d, 0, &e); CK(e);
    cl_program pr = clCreateProgramWithSource(cx, 1, (const char **)&src, NULL, &e); CK(e);
    CK(clBuildProgram(pr, 1, &d, "-cl-std=CL1.2", NULL, NULL));
    cl_mem bv = clCreateBuffer(cx, CL_MEM_COPY_HOST_PTR, sizeof(float) * NVAR * nelr, variables, &e);
    cl_mem ba = clCreateBuffer(cx, CL_MEM_COPY_HOST_PTR, sizeof(float) * nelr, areas, &e);
    cl_mem bs = clCreateBuffer(cx, 0, sizeof(float) * nelr, NULL, &e);
    cl_mem bn = clCreateBuffer(cx, CL_MEM_COPY_HOST_PTR, sizeof(float) * 3 * NNB * nelr, normals, &e);
    cl_mem be = clCreateBuffer(cx, CL_MEM_COPY_HOST_PTR, sizeof(int) * NNB * nelr, ese, &e);
    cl_mem bf = clCreateBuffer(cx, 0, sizeof(float) * NVAR * nelr, NULL, &e);
    cl_mem bff = clCreateBuffer(cx, CL_MEM_COPY_HOST_PTR, sizeof ffv, ffv, &e);
    cl_mem b3[4];
    F3 *f3[4] = {&ffde, &ffx, &ffy, &ffz};
    for (int k = 0; k < 4; k++) b3[k] = clCreateBuffer(cx, CL_MEM_COPY_HOST_PTR, sizeof(F3), f3[k], &e);
    cl_kernel ks = clCreateKernel(pr, "compute_step_factor", &e); CK(e);
    CK(clSetKernelArg(ks, 0, sizeof bv, &bv)); CK(clSetKernelArg(ks, 1, sizeof ba, &ba));
    CK(clSetKernelArg(ks, 2, sizeof bs, &bs)); CK(clSetKernelArg(ks, 3, sizeof nelr, &nelr));
    cl_kernel kf = clCreateKernel(pr, "compute_flux", &e); CK(e);
    cl_mem fa[] = {be, bn, bv, bff, bf, b3[0], b3[1], b3[2], b3[3]};
    for (int k = 0; k < 9; k++) CK(clSetKernelArg(kf, k, sizeof(cl_mem), &fa[k]));
    CK(clSetKernelArg(kf, 9, sizeof nelr, &nelr));
    size_t g = nelr, l = 64;
    double ts[256], tf[256];
    for (int k = 0; k < reps + 1; k++) {
        double t0 = now();
        CK(clEnqueueNDRangeKernel(q, ks, 1, NULL, &g, &l, 0, NULL, NULL)); CK(clFinish(q));
        double t1 = now();
        CK(clEnqueueNDRangeKernel(q, kf, 1, NULL, &g, &l, 0, NULL, NULL)); CK(clFinish(q));
        double t2 = now();
        if (k) { ts[k - 1] = t1 - t0; tf[k - 1] = t2 - t1; }
    }
    qsort(ts, reps, sizeof(double), cmp); qsort(tf, reps, sizeof(double), cmp);
    float *out = malloc(sizeof(float) * NVAR * nelr), *st = malloc(sizeof(float) * nelr);
    CK(clEnqueueReadBuffer(q, bf, CL_TRUE, 0, sizeof(float) * NVAR * nelr, out, 0, NULL, NULL));
    CK(clEnqueueReadBuffer(q, bs, CL_TRUE, 0, sizeof(float) * nelr, st, 0, NULL, NULL));
    double sum = 0;
    for (int i = 0; i < nelr; i++) sum += st[i] + out[i] + out[i + 4 * nelr];
    printf("step_factor %.3f ms  flux %.3f ms  (checksum %.6g)\n", ts[reps / 2] * 1e3, tf[reps / 2] * 1e3, sum);
    return 0;
}
