/* mandelbrot's SIMD loop, two SIMD groups interleaved as lanes emits it:
 * (a) live-out `it` and the exit id blended per iteration, (b) a per-lane
 * counter (it += active) and no exit id. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
#define W 768
#define H 768
#define MAXIT 128
typedef void (*fn)(unsigned*);
__attribute__((noinline)) void blend(unsigned *out){
  const float step=3.0f/W;
  for(int py=0;py<H;py++){ __m256 ci=_mm256_set1_ps(-1.5f+py*step);
   for(int px=0;px<W;px+=16){
    __m256 cr0=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 cr1=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px+8),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 zr0=_mm256_setzero_ps(),zi0=zr0,zr1=zr0,zi1=zr0;
    __m256 live0=_mm256_castsi256_ps(_mm256_set1_epi32(-1)),live1=live0;
    __m256i res0=_mm256_setzero_si256(),res1=res0,ex0=res0,ex1=res0;
    unsigned it=0;
    for(;;){
      if(!(it<MAXIT)) break;
      __m256 m0=_mm256_fmadd_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)), m1=_mm256_fmadd_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1));
      __m256 out0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_NLE_UQ));
      __m256 out1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_NLE_UQ));
      live0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      live1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      __m256i itv=_mm256_set1_epi32(it);
      res0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(res0),_mm256_castsi256_ps(itv),out0));
      res1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(res1),_mm256_castsi256_ps(itv),out1));
      ex0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(ex0),_mm256_castsi256_ps(_mm256_set1_epi32(1)),out0));
      ex1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(ex1),_mm256_castsi256_ps(_mm256_set1_epi32(1)),out1));
      __m256 t0=_mm256_add_ps(_mm256_fmsub_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)),cr0);
      __m256 t1=_mm256_add_ps(_mm256_fmsub_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1)),cr1);
      zi0=_mm256_fmadd_ps(_mm256_add_ps(zr0,zr0),zi0,ci); zi1=_mm256_fmadd_ps(_mm256_add_ps(zr1,zr1),zi1,ci);
      zr0=t0; zr1=t1; it++;
      if(_mm256_testz_ps(_mm256_or_ps(live0,live1),_mm256_or_ps(live0,live1))) break;
    }
    __m256i itv=_mm256_set1_epi32(it);
    __m256i r0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(itv),_mm256_castsi256_ps(res0),_mm256_castsi256_ps(_mm256_cmpeq_epi32(ex0,_mm256_set1_epi32(1)))));
    __m256i r1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(itv),_mm256_castsi256_ps(res1),_mm256_castsi256_ps(_mm256_cmpeq_epi32(ex1,_mm256_set1_epi32(1)))));
    _mm256_storeu_si256((__m256i*)(out+py*W+px),r0); _mm256_storeu_si256((__m256i*)(out+py*W+px+8),r1);
   }}
}
__attribute__((noinline)) void blend_noex(unsigned *out){
  const float step=3.0f/W;
  for(int py=0;py<H;py++){ __m256 ci=_mm256_set1_ps(-1.5f+py*step);
   for(int px=0;px<W;px+=16){
    __m256 cr0=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 cr1=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px+8),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 zr0=_mm256_setzero_ps(),zi0=zr0,zr1=zr0,zi1=zr0;
    __m256 live0=_mm256_castsi256_ps(_mm256_set1_epi32(-1)),live1=live0;
    __m256i res0=_mm256_setzero_si256(),res1=res0,ex0=res0,ex1=res0;
    unsigned it=0;
    for(;;){
      if(!(it<MAXIT)) break;
      __m256 m0=_mm256_fmadd_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)), m1=_mm256_fmadd_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1));
      __m256 out0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_NLE_UQ));
      __m256 out1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_NLE_UQ));
      live0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      live1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      __m256i itv=_mm256_set1_epi32(it);
      res0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(res0),_mm256_castsi256_ps(itv),out0));
      res1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(res1),_mm256_castsi256_ps(itv),out1));
      __m256 t0=_mm256_add_ps(_mm256_fmsub_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)),cr0);
      __m256 t1=_mm256_add_ps(_mm256_fmsub_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1)),cr1);
      zi0=_mm256_fmadd_ps(_mm256_add_ps(zr0,zr0),zi0,ci); zi1=_mm256_fmadd_ps(_mm256_add_ps(zr1,zr1),zi1,ci);
      zr0=t0; zr1=t1; it++;
      if(_mm256_testz_ps(_mm256_or_ps(live0,live1),_mm256_or_ps(live0,live1))) break;
    }
    __m256i itv=_mm256_set1_epi32(it);
    __m256i r0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(itv),_mm256_castsi256_ps(res0),_mm256_xor_ps(live0,_mm256_castsi256_ps(_mm256_set1_epi32(-1)))));
    __m256i r1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(itv),_mm256_castsi256_ps(res1),_mm256_xor_ps(live1,_mm256_castsi256_ps(_mm256_set1_epi32(-1)))));
    _mm256_storeu_si256((__m256i*)(out+py*W+px),r0); _mm256_storeu_si256((__m256i*)(out+py*W+px+8),r1);
   }}
}
__attribute__((noinline)) void counter(unsigned *out){
  const float step=3.0f/W;
  for(int py=0;py<H;py++){ __m256 ci=_mm256_set1_ps(-1.5f+py*step);
   for(int px=0;px<W;px+=16){
    __m256 cr0=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 cr1=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px+8),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 zr0=_mm256_setzero_ps(),zi0=zr0,zr1=zr0,zi1=zr0;
    __m256 live0=_mm256_castsi256_ps(_mm256_set1_epi32(-1)),live1=live0;
    __m256i cnt0=_mm256_setzero_si256(),cnt1=cnt0;
    unsigned it=0;
    for(;;){
      if(!(it<MAXIT)) break;
      __m256 m0=_mm256_fmadd_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)), m1=_mm256_fmadd_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1));
      live0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      live1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      __m256 t0=_mm256_add_ps(_mm256_fmsub_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)),cr0);
      __m256 t1=_mm256_add_ps(_mm256_fmsub_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1)),cr1);
      zi0=_mm256_fmadd_ps(_mm256_add_ps(zr0,zr0),zi0,ci); zi1=_mm256_fmadd_ps(_mm256_add_ps(zr1,zr1),zi1,ci);
      zr0=t0; zr1=t1; it++;
      cnt0=_mm256_sub_epi32(cnt0,_mm256_castps_si256(live0)); cnt1=_mm256_sub_epi32(cnt1,_mm256_castps_si256(live1));
      if(_mm256_testz_ps(_mm256_or_ps(live0,live1),_mm256_or_ps(live0,live1))) break;
    }
    _mm256_storeu_si256((__m256i*)(out+py*W+px),cnt0); _mm256_storeu_si256((__m256i*)(out+py*W+px+8),cnt1);
   }}
}
__attribute__((noinline)) void counter_ex(unsigned *out){
  const float step=3.0f/W;
  for(int py=0;py<H;py++){ __m256 ci=_mm256_set1_ps(-1.5f+py*step);
   for(int px=0;px<W;px+=16){
    __m256 cr0=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 cr1=_mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(px+8),_mm256_setr_epi32(0,1,2,3,4,5,6,7))),_mm256_set1_ps(step),_mm256_set1_ps(-2.25f));
    __m256 zr0=_mm256_setzero_ps(),zi0=zr0,zr1=zr0,zi1=zr0;
    __m256 live0=_mm256_castsi256_ps(_mm256_set1_epi32(-1)),live1=live0;
    __m256i cnt0=_mm256_setzero_si256(),cnt1=cnt0,ex0=cnt0,ex1=cnt0;
    unsigned it=0;
    for(;;){
      if(!(it<MAXIT)) break;
      __m256 m0=_mm256_fmadd_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)), m1=_mm256_fmadd_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1));
      __m256 out0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_NLE_UQ));
      __m256 out1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_NLE_UQ));
      ex0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(ex0),_mm256_castsi256_ps(_mm256_set1_epi32(1)),out0));
      ex1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(ex1),_mm256_castsi256_ps(_mm256_set1_epi32(1)),out1));
      live0=_mm256_and_ps(live0,_mm256_cmp_ps(m0,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      live1=_mm256_and_ps(live1,_mm256_cmp_ps(m1,_mm256_set1_ps(4.0f),_CMP_LE_OQ));
      __m256 t0=_mm256_add_ps(_mm256_fmsub_ps(zr0,zr0,_mm256_mul_ps(zi0,zi0)),cr0);
      __m256 t1=_mm256_add_ps(_mm256_fmsub_ps(zr1,zr1,_mm256_mul_ps(zi1,zi1)),cr1);
      zi0=_mm256_fmadd_ps(_mm256_add_ps(zr0,zr0),zi0,ci); zi1=_mm256_fmadd_ps(_mm256_add_ps(zr1,zr1),zi1,ci);
      zr0=t0; zr1=t1; it++;
      cnt0=_mm256_sub_epi32(cnt0,_mm256_castps_si256(live0)); cnt1=_mm256_sub_epi32(cnt1,_mm256_castps_si256(live1));
      if(_mm256_testz_ps(_mm256_or_ps(live0,live1),_mm256_or_ps(live0,live1))) break;
    }
    __m256i itv=_mm256_set1_epi32(it);
    __m256i r0=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(itv),_mm256_castsi256_ps(cnt0),_mm256_castsi256_ps(_mm256_cmpeq_epi32(ex0,_mm256_set1_epi32(1)))));
    __m256i r1=_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(itv),_mm256_castsi256_ps(cnt1),_mm256_castsi256_ps(_mm256_cmpeq_epi32(ex1,_mm256_set1_epi32(1)))));
    _mm256_storeu_si256((__m256i*)(out+py*W+px),r0); _mm256_storeu_si256((__m256i*)(out+py*W+px+8),r1);
   }}
}
int main(){
  unsigned *a=malloc(4*W*H),*b=malloc(4*W*H);
  blend(a);
  fn others[3]={counter,counter_ex,blend_noex};
  for(int k=0;k<3;k++){ others[k](b); int diff=0; for(int i=0;i<W*H;i++) diff+=a[i]!=b[i]; printf("version %d differs from the blends on %d pixels\n",k+1,diff); }
  fn f[4]={blend,counter,counter_ex,blend_noex}; enum{R=15}; double t[4][R];
  for(int r=0;r<R;r++) for(int j0=0;j0<4;j0++){int j=(j0+r)%4; double s=now(); f[j](b); t[j][r]=now()-s;}
  for(int j=0;j<4;j++){qsort(t[j],R,sizeof(double),cmpd); printf("%s median %.2f min %.2f ms\n", j==0?"blend":j==1?"counter":j==2?"counter+exit id":"blend, no exit id", t[j][R/2], t[j][0]);}
}
