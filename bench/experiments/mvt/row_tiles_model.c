#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
#define N 2048
__attribute__((noinline)) void gath(const float*a,float*x1,const float*y1,int n){
  __m256i idx=_mm256_mullo_epi32(_mm256_setr_epi32(0,1,2,3,4,5,6,7),_mm256_set1_epi32(n));
  for(int i=0;i<n;i+=8){ const float*row=a+(size_t)i*n; __m256 acc=_mm256_loadu_ps(x1+i);
    for(int j=0;j<n;j++){ __m256 v=_mm256_i32gather_ps(row+j,idx,4); acc=_mm256_fmadd_ps(v,_mm256_broadcast_ss(y1+j),acc);} _mm256_storeu_ps(x1+i,acc);} }
__attribute__((noinline)) void gath_st(const float*a,float*x1,const float*y1,int n){
  __m256i idx=_mm256_mullo_epi32(_mm256_setr_epi32(0,1,2,3,4,5,6,7),_mm256_set1_epi32(n));
  for(int i=0;i<n;i+=8){ const float*row=a+(size_t)i*n; __m256 acc=_mm256_loadu_ps(x1+i);
    for(int j=0;j<n;j++){ __m256 v=_mm256_i32gather_ps(row+j,idx,4); acc=_mm256_fmadd_ps(v,_mm256_broadcast_ss(y1+j),acc); _mm256_storeu_ps(x1+i,acc); __asm__ volatile(""::"m"(x1[i]));} } }
static inline void tr8(__m256 r[8]){
  __m256 t0=_mm256_unpacklo_ps(r[0],r[1]),t1=_mm256_unpackhi_ps(r[0],r[1]),t2=_mm256_unpacklo_ps(r[2],r[3]),t3=_mm256_unpackhi_ps(r[2],r[3]);
  __m256 t4=_mm256_unpacklo_ps(r[4],r[5]),t5=_mm256_unpackhi_ps(r[4],r[5]),t6=_mm256_unpacklo_ps(r[6],r[7]),t7=_mm256_unpackhi_ps(r[6],r[7]);
  __m256 s0=_mm256_shuffle_ps(t0,t2,0x44),s1=_mm256_shuffle_ps(t0,t2,0xEE),s2=_mm256_shuffle_ps(t1,t3,0x44),s3=_mm256_shuffle_ps(t1,t3,0xEE);
  __m256 s4=_mm256_shuffle_ps(t4,t6,0x44),s5=_mm256_shuffle_ps(t4,t6,0xEE),s6=_mm256_shuffle_ps(t5,t7,0x44),s7=_mm256_shuffle_ps(t5,t7,0xEE);
  r[0]=_mm256_permute2f128_ps(s0,s4,0x20);r[1]=_mm256_permute2f128_ps(s1,s5,0x20);r[2]=_mm256_permute2f128_ps(s2,s6,0x20);r[3]=_mm256_permute2f128_ps(s3,s7,0x20);
  r[4]=_mm256_permute2f128_ps(s0,s4,0x31);r[5]=_mm256_permute2f128_ps(s1,s5,0x31);r[6]=_mm256_permute2f128_ps(s2,s6,0x31);r[7]=_mm256_permute2f128_ps(s3,s7,0x31);}
__attribute__((noinline)) void tile(const float*a,float*x1,const float*y1,int n){
  for(int i=0;i<n;i+=8){ const float*row=a+(size_t)i*n; __m256 acc=_mm256_loadu_ps(x1+i);
    for(int j=0;j<n;j+=8){ __m256 r[8]; for(int k=0;k<8;k++) r[k]=_mm256_loadu_ps(row+(size_t)k*n+j); tr8(r);
      for(int k=0;k<8;k++) acc=_mm256_fmadd_ps(r[k],_mm256_broadcast_ss(y1+j+k),acc);} _mm256_storeu_ps(x1+i,acc);} }
__attribute__((noinline)) void tile_st(const float*a,float*x1,const float*y1,int n){
  for(int i=0;i<n;i+=8){ const float*row=a+(size_t)i*n; __m256 acc=_mm256_loadu_ps(x1+i);
    for(int j=0;j<n;j+=8){ __m256 r[8]; for(int k=0;k<8;k++) r[k]=_mm256_loadu_ps(row+(size_t)k*n+j); tr8(r);
      for(int k=0;k<8;k++) {acc=_mm256_fmadd_ps(r[k],_mm256_broadcast_ss(y1+j+k),acc); _mm256_storeu_ps(x1+i,acc); __asm__ volatile(""::"m"(x1[i]));}} } }
__attribute__((noinline)) void scal(const float*a,float*x1,const float*y1,int n){
  for(int i=0;i<n;i++) for(int j=0;j<n;j++) x1[i]+=a[(size_t)i*n+j]*y1[j]; }
int main(){ float*a=aligned_alloc(64,(size_t)N*N*4),*x=aligned_alloc(64,N*4),*y=aligned_alloc(64,N*4);
 for(size_t i=0;i<(size_t)N*N;i++)a[i]=(i%7)*0.25f; for(int i=0;i<N;i++){x[i]=0;y[i]=(i%5)*0.5f;}
 void(*f[5])(const float*,float*,const float*,int)={gath,tile,tile_st,scal,gath_st}; const char*nm[5]={"gather","tile","tile+store","scalar","gather+st"};
 double best[5]={1e9,1e9,1e9,1e9,1e9};
 size_t fl=(size_t)64<<20; char*flush=malloc(fl); for(int r=0;r<9;r++) for(int k=0;k<5;k++){ for(size_t q=0;q<fl;q+=64) flush[q]++; double t=now(); f[k](a,x,y,N); t=now()-t; if(t<best[k])best[k]=t;}
 for(int k=0;k<5;k++) printf("%-10s %.2f ms\n",nm[k],best[k]); return 0;}
