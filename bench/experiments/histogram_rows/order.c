/* order.c - the order in which histogram.cl's work-group reads its block,
 * modelled in C: 1024 work-groups of 256 work-items (32 SIMD groups of 8),
 * each counting 32 rows of 256 uints into 256 bins with one scalar
 * increment per value, as lanes' `__local` atomics do. `col` runs each
 * SIMD group through all 32 rows before the next SIMD group (lanes before
 * row order: 8 values from each row, rows 1 KiB apart), `row` runs every
 * SIMD group on a row before the next row (lanes with vectorize/row_order.rs,
 * and PoCL's work-item loop inside the uniform loop). Same data as the
 * benchmark's generator (xorshift64*), medians of N runs, alternating.
 *
 *   gcc -O2 -march=native -fno-tree-vectorize order.c -o order && taskset -c 1 ./order 15
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint64_t nx(void){ s^=s>>12; s^=s<<25; s^=s>>27; return s*0x2545f4914f6cdd1dull; }
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
#define L 256
#define W 8
__attribute__((noinline)) void col(const uint32_t *d, uint32_t *p, size_t groups){
  uint32_t bins[256];
  for(size_t g=0;g<groups;g++){ memset(bins,0,sizeof bins); const uint32_t *b=d+g*L*32;
    for(int sg=0;sg<L/W;sg++) for(int k=0;k<32;k++){ const uint32_t *q=b+k*L+sg*W;
      #pragma GCC unroll 8
      for(int l=0;l<W;l++) { __asm__ volatile(""); bins[q[l]&255]++; } }
    memcpy(p+g*256,bins,sizeof bins);}
}
__attribute__((noinline)) void row(const uint32_t *d, uint32_t *p, size_t groups){
  uint32_t bins[256];
  for(size_t g=0;g<groups;g++){ memset(bins,0,sizeof bins); const uint32_t *b=d+g*L*32;
    for(int k=0;k<32;k++) for(int sg=0;sg<L/W;sg++){ const uint32_t *q=b+k*L+sg*W;
      #pragma GCC unroll 8
      for(int l=0;l<W;l++) { __asm__ volatile(""); bins[q[l]&255]++; } }
    memcpy(p+g*256,bins,sizeof bins);}
}
int main(int argc, char **argv) {
  size_t groups=1024, n=groups*L*32; int reps = argc > 1 ? atoi(argv[1]) : 15; if (reps > 64) reps = 64;
  uint32_t *d=malloc(n*4),*p=malloc(groups*1024);
  for(size_t i=0;i<n;i++) d[i]=(uint32_t)nx();
  double tc[64],tr[64];
  for(int k=0;k<reps;k++){ double a=now(); col(d,p,groups); tc[k]=now()-a; a=now(); row(d,p,groups); tr[k]=now()-a; }
  for(int i=0;i<reps;i++) for(int j=i+1;j<reps;j++){ if(tc[j]<tc[i]){double x=tc[i];tc[i]=tc[j];tc[j]=x;} if(tr[j]<tr[i]){double x=tr[i];tr[i]=tr[j];tr[j]=x;}}
  printf("col median %.2f min %.2f | row median %.2f min %.2f\n", tc[reps/2], tc[0], tr[reps/2], tr[0]);
}
