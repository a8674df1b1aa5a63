/* scan_driver.c - runs bench/kernels/scan.cl's `lanes build` object on G
 * work-groups of 256 (blocks of 512 floats, as the benchmark), R times,
 * printing each call's thread CPU time when R > 1, and checks every block's
 * exclusive prefix sum and total exactly (the inputs are multiples of 0.25).
 *
 *   lanes build --target avx2-i32x8 bench/kernels/scan.cl -o scan.o --header scan.h
 *   gcc -O2 -no-pie scan_driver.c scan.o -o scan_driver
 *   taskset -c 1 ./scan_driver 32768 11        # time
 *   valgrind --tool=callgrind --dump-instr=yes ./scan_driver 1024 1
 *   python3 callgrind_by_address.py callgrind.out.PID scan_driver scan_blocks_groups
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "scan.h"
static double tcpu(void){ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc,char**argv){
  size_t groups = argc>1? atol(argv[1]) : 32768; int reps = argc>2? atoi(argv[2]) : 1;
  size_t n = groups*512;
  float *in=malloc(n*4),*out=malloc(n*4),*sums=malloc(groups*4);
  for(size_t i=0;i<n;i++) in[i]=(float)((i*7)%13)*0.25f;
  lanes_range r={1,{0,0,0},{groups*256,1,1},{256,1,1}};
  for(int k=0;k<reps;k++){ double t0=tcpu(); int rc=scan_blocks_groups(in,out,sums,&r,0,groups); double t1=tcpu(); if(rc) {printf("rc %d\n",rc);return 1;} if(reps>1) printf("%.2f ms\n",t1-t0); }
  /* check */
  for(size_t g=0;g<groups;g++){ float s=0; for(size_t i=g*512;i<(g+1)*512;i++){ if(out[i]!=s){printf("mismatch %zu %f %f\n",i,out[i],s);return 1;} s+=in[i]; } if(sums[g]!=s){printf("sum mismatch\n");return 1;} }
  printf("ok\n"); return 0;
}
