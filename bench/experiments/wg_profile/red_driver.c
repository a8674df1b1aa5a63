/* red_driver.c - runs bench/kernels/reduction.cl's `lanes build` object on G
 * work-groups of 256 (blocks of 512 floats, as the benchmark), R times,
 * printing each call's thread CPU time when R > 1, and checks every block's
 * sum exactly (the inputs are multiples of 0.25).
 *
 *   lanes build --target avx2-i32x8 bench/kernels/reduction.cl -o red.o --header red.h
 *   gcc -O2 -no-pie red_driver.c red.o -o red_driver
 *   taskset -c 1 ./red_driver 32768 11        # time
 *   valgrind --tool=callgrind --dump-instr=yes ./red_driver 1024 1
 *   python3 ../scan_profile/callgrind_by_address.py callgrind.out.PID red_driver reduce_sum_groups > red.prof
 *   python3 counts_by_range.py red.prof 1024 loads=ADDR-ADDR ...   # per work-group, by part
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "red.h"
static double tcpu(void){ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc,char**argv){
  size_t groups = argc>1? atol(argv[1]) : 32768; int reps = argc>2? atoi(argv[2]) : 1;
  size_t n = groups*512;
  float *in=malloc(n*4),*out=malloc(groups*4);
  for(size_t i=0;i<n;i++) in[i]=(float)((i*7)%13)*0.25f;
  lanes_range r={1,{0,0,0},{groups*256,1,1},{256,1,1}};
  for(int k=0;k<reps;k++){ double t0=tcpu(); int rc=reduce_sum_groups(in,out,(int)n,&r,0,groups); double t1=tcpu(); if(rc){printf("rc %d\n",rc);return 1;} if(reps>1) printf("%.2f ms\n",t1-t0); }
  for(size_t g=0;g<groups;g++){ float s=0; for(size_t i=g*512;i<(g+1)*512;i++) s+=in[i]; if(out[g]!=s){printf("mismatch %zu %f %f\n",g,out[g],s);return 1;} }
  printf("ok\n"); return 0;
}
