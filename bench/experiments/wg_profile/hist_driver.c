/* hist_driver.c - runs bench/kernels/histogram.cl's `lanes build` object on G
 * work-groups of 256 (8,192 values each, as the benchmark), R times,
 * printing each call's thread CPU time when R > 1, and checks every
 * sub-histogram against a C count.
 *
 *   lanes build --target avx2-i32x8 bench/kernels/histogram.cl -o hist.o --header hist.h
 *   gcc -O2 -no-pie hist_driver.c hist.o -o hist_driver
 *   valgrind --tool=callgrind --dump-instr=yes ./hist_driver 256 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "hist.h"
static double tcpu(void){ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc,char**argv){
  size_t groups = argc>1? atol(argv[1]) : 1024; int reps = argc>2? atoi(argv[2]) : 1;
  size_t n = groups*256*32;
  unsigned *data=malloc(n*4),*out=malloc(groups*256*4);
  unsigned x=12345; for(size_t i=0;i<n;i++){ x=x*1103515245u+12345u; data[i]=x>>8; }
  lanes_range r={1,{0,0,0},{groups*256,1,1},{256,1,1}};
  for(int k=0;k<reps;k++){ double t0=tcpu(); int rc=histogram256_groups(data,out,&r,0,groups); double t1=tcpu(); if(rc){printf("rc %d\n",rc);return 1;} if(reps>1) printf("%.2f ms\n",t1-t0); }
  for(size_t g=0;g<groups;g++){ unsigned b[256]={0}; for(size_t i=g*8192;i<(g+1)*8192;i++) b[data[i]&255]++; for(int j=0;j<256;j++) if(out[g*256+j]!=b[j]){printf("mismatch %zu %d\n",g,j);return 1;} }
  printf("ok\n"); return 0;
}
