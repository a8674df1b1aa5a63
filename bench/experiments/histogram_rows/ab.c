/* ab.c - bench/kernels/histogram.cl built by two lanes binaries, called in
 * one process, alternating (the benchmark's data, local size 256, 1024
 * work-groups of 32 rows); each result is checked against a C count.
 *
 *   M=/work/wt/final/target/release/lanes; L=target/release/lanes
 *   $L build bench/kernels/histogram.cl --target avx2-i32x8 -o /tmp/x/h2.o --header /tmp/x/h.h
 *   $M build bench/kernels/histogram.cl --target avx2-i32x8 -o /tmp/x/h.o
 *   objcopy --redefine-sym histogram256=old_histogram256 \
 *     --redefine-sym histogram256_groups=old_histogram256_groups \
 *     --redefine-sym histogram256__launch=old_histogram256__launch /tmp/x/h.o /tmp/x/hold.o
 *   gcc -O2 -I/tmp/x bench/experiments/histogram_rows/ab.c /tmp/x/h2.o /tmp/x/hold.o -o /tmp/x/ab
 *   taskset -c 1 /tmp/x/ab 21
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "h.h"
int old_histogram256(const uint32_t *data, uint32_t *partial, const lanes_range *r);
static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint64_t nx(void){ s^=s>>12; s^=s<<25; s^=s>>27; return s*0x2545f4914f6cdd1dull; }
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc, char **argv){
  size_t groups=1024, L=256, n=groups*L*32;
  int reps = argc>1?atoi(argv[1]):9;
  uint32_t *d=malloc(n*4), *p=malloc(groups*256*4);
  for(size_t i=0;i<n;i++) d[i]=(uint32_t)nx();
  lanes_range r; memset(&r,0,sizeof r); r.work_dim=1; r.global_size[0]=groups*L; r.global_size[1]=r.global_size[2]=1;
  r.local_size[0]=L; r.local_size[1]=r.local_size[2]=1;
  /* reference */
  uint32_t *ref=calloc(groups*256,4);
  for(size_t g=0;g<groups;g++) for(size_t i=0;i<L*32;i++) ref[g*256+(d[g*L*32+i]&255)]++;
  double t[64], u[64];
  for(int k=0;k<reps;k++){ double a=now(); histogram256(d,p,&r); t[k]=now()-a;
    if(memcmp(p,ref,groups*256*4)) { printf("MISMATCH new\n"); return 1; }
    a=now(); old_histogram256(d,p,&r); u[k]=now()-a;
    if(memcmp(p,ref,groups*256*4)) { printf("MISMATCH old\n"); return 1; } }
  for(int i=0;i<reps;i++) for(int j=i+1;j<reps;j++){ if(t[j]<t[i]){double x=t[i];t[i]=t[j];t[j]=x;} if(u[j]<u[i]){double x=u[i];u[i]=u[j];u[j]=x;}}
  printf("old (main) median %.2f min %.2f | new (row order) median %.2f min %.2f ms\n", u[reps/2], u[0], t[reps/2], t[0]);
  return 0;
}
