/* c_red_t.c - times gcc's loop (bench/kernels/c/reduction.c, gcc -O3 -march=native -no-pie c_red_t.c bench/kernels/c/reduction.c) on G work-groups, R calls, thread CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void reduce_sum(const float *in, float *partial, int n, int lo, int hi);
static double tcpu(void){ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc,char**argv){ size_t groups=argc>1?atol(argv[1]):1024; int reps=argc>2?atoi(argv[2]):1; size_t n=groups*512; float*in=malloc(n*4),*out=malloc(groups*4);
for(size_t i=0;i<n;i++) in[i]=(float)((i*7)%13)*0.25f;
for(int k=0;k<reps;k++){double t0=tcpu(); reduce_sum(in,out,(int)n,0,(int)groups); double t1=tcpu(); printf("%.2f ms\n",t1-t0);} return 0;}
