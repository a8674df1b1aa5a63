#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
__attribute__((noinline)) void jac(const float*A,float*B,long n,int nt){
  __m256 f=_mm256_set1_ps(0.2f);
  for(long i=1;i<n-1;i++){ long j=8; // j from 8 (aligned groups like lanes); ignore edges
    for(;j+8<=n-8;j+=8){ const float*a=A+i*n+j;
      __m256 v=_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(a),_mm256_loadu_ps(a-1)),_mm256_loadu_ps(a+1)),_mm256_loadu_ps(a+n)),_mm256_loadu_ps(a-n));
      v=_mm256_mul_ps(v,f); float*b=B+i*n+j;
      if(nt){_mm_stream_ps(b+4,_mm256_extractf128_ps(v,1));_mm_stream_ps(b,_mm256_castps256_ps128(v));} else _mm256_storeu_ps(b,v);}}
  if(nt)_mm_sfence();}
int main(int argc,char**argv){long n=4096;int off=atoi(argv[1]);
 float*A=(float*)((char*)aligned_alloc(4096,n*n*4+4096)+off),*B=(float*)((char*)aligned_alloc(4096,n*n*4+4096)+off);
 for(long i=0;i<n*n;i++){A[i]=i%97;B[i]=0;}
 double t0[9],t1[9];
 for(int k=0;k<9;k++){double t=now();jac(A,B,n,0);t0[k]=now()-t;t=now();jac(A,B,n,1);t1[k]=now()-t;}
 qsort(t0,9,8,cmpd);qsort(t1,9,8,cmpd);printf("off %d plain %.2f nt16 %.2f\n",off,t0[4],t1[4]);}
