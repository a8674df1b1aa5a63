/* region.c - where the time of histogram.cl's row-order loop goes, modelled
 * in C (the same data and work-groups as order.c, every SIMD group of 8
 * reading row k before any reads row k + 1):
 *   scalar - one scalar increment per value (gcc's loop);
 *   vec64  - lanes' lowering of the `__local` atomic_inc: a vector load,
 *            64-bit lane addresses (vpmovzxdq, vpsllq, vpaddq) extracted
 *            lane by lane, `incl` to memory;
 *   spill  - the 32-bit bin indices through a stack store and scalar loads,
 *            `incl (bins,idx,4)`;
 *   saved  - vec64 inside lanes' region loop: per SIMD group and iteration
 *            the loop counter, the row start and the local size come from
 *            the SIMD group's save area (33 passes over 32 SIMD groups).
 * Medians of N runs, alternating; each result is checked against scalar's.
 *
 *   gcc -O2 -march=native region.c -o region && taskset -c 1 ./region 11
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include <immintrin.h>
static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint64_t nx(void){ s^=s>>12; s^=s<<25; s^=s>>27; return s*0x2545f4914f6cdd1dull; }
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
#define L 256
__attribute__((noinline)) void row_scalar(const uint32_t *d, uint32_t *p, size_t groups){
  uint32_t bins[256];
  for(size_t g=0;g<groups;g++){ memset(bins,0,sizeof bins); const uint32_t *b=d+g*L*32;
    for(int k=0;k<32;k++) for(int sg=0;sg<L/8;sg++){ const uint32_t *q=b+k*L+sg*8;
      #pragma GCC unroll 8
      for(int l=0;l<8;l++) { __asm__ volatile(""); bins[q[l]&255]++; } }
    memcpy(p+g*256,bins,sizeof bins);}
}
/* lanes' lowering: 64-bit pointers in vectors, extracted lane by lane */
__attribute__((noinline)) void row_vec64(const uint32_t *d, uint32_t *p, size_t groups){
  uint32_t bins[256];
  for(size_t g=0;g<groups;g++){ memset(bins,0,sizeof bins); const uint32_t *b=d+g*L*32;
    __m256i base=_mm256_set1_epi64x((long long)(uintptr_t)bins);
    for(int k=0;k<32;k++) for(int sg=0;sg<L/8;sg++){ const uint32_t *q=b+k*L+sg*8;
      __m256i v=_mm256_and_si256(_mm256_loadu_si256((const __m256i*)q), _mm256_set1_epi32(255));
      __m256i lo=_mm256_add_epi64(base,_mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),2));
      __m256i hi=_mm256_add_epi64(base,_mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(v,1)),2));
      uint32_t *a0=(uint32_t*)_mm256_extract_epi64(lo,0); __asm__ volatile("incl (%0)"::"r"(a0):"memory");
      uint32_t *a1=(uint32_t*)_mm256_extract_epi64(lo,1); __asm__ volatile("incl (%0)"::"r"(a1):"memory");
      uint32_t *a2=(uint32_t*)_mm256_extract_epi64(lo,2); __asm__ volatile("incl (%0)"::"r"(a2):"memory");
      uint32_t *a3=(uint32_t*)_mm256_extract_epi64(lo,3); __asm__ volatile("incl (%0)"::"r"(a3):"memory");
      uint32_t *a4=(uint32_t*)_mm256_extract_epi64(hi,0); __asm__ volatile("incl (%0)"::"r"(a4):"memory");
      uint32_t *a5=(uint32_t*)_mm256_extract_epi64(hi,1); __asm__ volatile("incl (%0)"::"r"(a5):"memory");
      uint32_t *a6=(uint32_t*)_mm256_extract_epi64(hi,2); __asm__ volatile("incl (%0)"::"r"(a6):"memory");
      uint32_t *a7=(uint32_t*)_mm256_extract_epi64(hi,3); __asm__ volatile("incl (%0)"::"r"(a7):"memory");
    }
    memcpy(p+g*256,bins,sizeof bins);}
}
/* indices through a stack store, scalar loads, incl (bins,idx,4) */
__attribute__((noinline)) void row_spill(const uint32_t *d, uint32_t *p, size_t groups){
  uint32_t bins[256]; uint32_t idx[8] __attribute__((aligned(32)));
  for(size_t g=0;g<groups;g++){ memset(bins,0,sizeof bins); const uint32_t *b=d+g*L*32;
    for(int k=0;k<32;k++) for(int sg=0;sg<L/8;sg++){ const uint32_t *q=b+k*L+sg*8;
      __m256i v=_mm256_and_si256(_mm256_loadu_si256((const __m256i*)q), _mm256_set1_epi32(255));
      _mm256_store_si256((__m256i*)idx,v); __asm__ volatile(""::"r"(idx):"memory");
      #pragma GCC unroll 8
      for(int l=0;l<8;l++){ __asm__ volatile("incl (%0,%1,4)"::"r"(bins),"r"((uint64_t)idx[l]):"memory"); }
    }
    memcpy(p+g*256,bins,sizeof bins);}
}

struct slot { int k; int pad[7]; int base; int pad2[7]; int lsize; int pad3[15]; };
__attribute__((noinline)) void row_saved(const uint32_t *d, uint32_t *p, size_t groups){
  uint32_t bins[256]; static struct slot save[32];
  for(size_t g=0;g<groups;g++){ memset(bins,0,sizeof bins);
    __m256i base=_mm256_set1_epi64x((long long)(uintptr_t)bins);
    for(int sg=0;sg<32;sg++){ save[sg].k=-1; save[sg].base=(int)(g*L*32)+sg*8; save[sg].lsize=L; }
    for(int pass=0;pass<33;pass++) for(int sg=0;sg<32;sg++){ struct slot *s=&save[sg]; __asm__ volatile(""::"r"(s):"memory");
      int k=++s->k; if(k>31) continue; const uint32_t *q=d+(long)(k*s->lsize+s->base);
      __m256i v=_mm256_and_si256(_mm256_loadu_si256((const __m256i*)q), _mm256_set1_epi32(255));
      __m256i lo=_mm256_add_epi64(base,_mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),2));
      __m256i hi=_mm256_add_epi64(base,_mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(v,1)),2));
      uint32_t *a0=(uint32_t*)_mm256_extract_epi64(lo,0); __asm__ volatile("incl (%0)"::"r"(a0):"memory");
      uint32_t *a1=(uint32_t*)_mm256_extract_epi64(lo,1); __asm__ volatile("incl (%0)"::"r"(a1):"memory");
      uint32_t *a2=(uint32_t*)_mm256_extract_epi64(lo,2); __asm__ volatile("incl (%0)"::"r"(a2):"memory");
      uint32_t *a3=(uint32_t*)_mm256_extract_epi64(lo,3); __asm__ volatile("incl (%0)"::"r"(a3):"memory");
      uint32_t *a4=(uint32_t*)_mm256_extract_epi64(hi,0); __asm__ volatile("incl (%0)"::"r"(a4):"memory");
      uint32_t *a5=(uint32_t*)_mm256_extract_epi64(hi,1); __asm__ volatile("incl (%0)"::"r"(a5):"memory");
      uint32_t *a6=(uint32_t*)_mm256_extract_epi64(hi,2); __asm__ volatile("incl (%0)"::"r"(a6):"memory");
      uint32_t *a7=(uint32_t*)_mm256_extract_epi64(hi,3); __asm__ volatile("incl (%0)"::"r"(a7):"memory");
    }
    memcpy(p+g*256,bins,sizeof bins);}
}
int main(int argc,char**argv){
  size_t groups=1024, n=groups*L*32; int reps=argc>1?atoi(argv[1]):11;
  uint32_t *d=malloc(n*4),*p=malloc(groups*1024),*ref=malloc(groups*1024);
  for(size_t i=0;i<n;i++) d[i]=(uint32_t)nx();
  double t[4][64]; void (*fs[4])(const uint32_t*,uint32_t*,size_t)={row_scalar,row_vec64,row_spill,row_saved};
  row_scalar(d,ref,groups);
  for(int k=0;k<reps;k++) for(int f=0;f<4;f++){ double a=now(); fs[f](d,p,groups); t[f][k]=now()-a; if(memcmp(p,ref,groups*1024)){printf("bad %d\n",f);return 1;} }
  for(int f=0;f<4;f++){ for(int i=0;i<reps;i++) for(int j=i+1;j<reps;j++) if(t[f][j]<t[f][i]){double x=t[f][i];t[f][i]=t[f][j];t[f][j]=x;}
    printf("%s median %.2f min %.2f\n", f==0?"scalar":f==1?"vec64 ":f==2?"spill ":"saved ", t[f][reps/2], t[f][0]); }
}
