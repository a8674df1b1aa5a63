#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
#define N 4096
static inline __m256 st(const float*A,int i,int j){
  const float*r=A+(size_t)i*N+j;
  __m256 s=_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(r),_mm256_loadu_ps(r-1)),_mm256_loadu_ps(r+1)),
      _mm256_add_ps(_mm256_load_ps(r+N),_mm256_load_ps(r-N)));
  return _mm256_mul_ps(_mm256_set1_ps(0.2f),s);
}
static inline void edges(const float*A,float*B,int i){
  for(int j=1;j<8;j++){size_t k=(size_t)i*N+j;B[k]=0.2f*(A[k]+A[k-1]+A[k+1]+A[k+N]+A[k-N]);}
  for(int j=N-8;j<N-1;j++){size_t k=(size_t)i*N+j;B[k]=0.2f*(A[k]+A[k-1]+A[k+1]+A[k+N]+A[k-N]);}
}
#define PF1(i,j) _mm_prefetch((const char*)(A+(size_t)(i+1)*N+j+1024),_MM_HINT_T0)
#define PF3(i,j) do{_mm_prefetch((const char*)(A+(size_t)(i+1)*N+j+1024),_MM_HINT_T0);_mm_prefetch((const char*)(A+(size_t)(i)*N+j+1024),_MM_HINT_T0);_mm_prefetch((const char*)(A+(size_t)(i-1)*N+j+1024),_MM_HINT_T0);}while(0)
#define PF5(i,j) do{PF3(i,j);_mm_prefetch((const char*)(A+(size_t)(i)*N+j+1023),_MM_HINT_T0);_mm_prefetch((const char*)(A+(size_t)(i)*N+j+1025),_MM_HINT_T0);}while(0)
#define PFROW(i,j) _mm_prefetch((const char*)(A+(size_t)(i+2)*N+j),_MM_HINT_T0)
#define MK(name,PF,ST,LINES) __attribute__((noinline)) void name(const float*A,float*B){ \
  for(int i=1;i<N-1;i++){edges(A,B,i); int j0=8,j1=N-8; \
    if(LINES){_mm256_store_ps(B+(size_t)i*N+8,st(A,i,8));_mm256_store_ps(B+(size_t)i*N+N-16,st(A,i,N-16));j0=16;j1=N-16;} \
    for(int j=j0;j<j1;j+=8){PF(i,j);ST(B+(size_t)i*N+j,st(A,i,j));}} _mm_sfence();}
#define NOPF(i,j)
MK(normal,NOPF,_mm256_store_ps,0)
MK(n_pf1,PF1,_mm256_store_ps,0)
MK(n_pf3,PF3,_mm256_store_ps,0)
MK(n_pf5,PF5,_mm256_store_ps,0)
MK(n_row,PFROW,_mm256_store_ps,0)
MK(nt_pf1,PF1,_mm256_stream_ps,0)
MK(nt_pf3,PF3,_mm256_stream_ps,0)
MK(nt_pf5,PF5,_mm256_stream_ps,0)
MK(ntl_pf1,PF1,_mm256_stream_ps,1)
MK(ntl_pf3,PF3,_mm256_stream_ps,1)
MK(ntl_pf5,PF5,_mm256_stream_ps,1)
MK(ntl_row,PFROW,_mm256_stream_ps,1)
int main(){
  float*A=aligned_alloc(4096,4ul*N*N),*B=aligned_alloc(4096,4ul*N*N);
  for(size_t k=0;k<(size_t)N*N;k++){A[k]=k%7;B[k]=0;}
  void(*f[])(const float*,float*)={normal,n_pf1,n_pf3,n_pf5,n_row,nt_pf1,nt_pf3,nt_pf5,ntl_pf1,ntl_pf3,ntl_pf5,ntl_row};
  const char*nm[]={"normal","n_pf1","n_pf3","n_pf5","n_row","nt_pf1","nt_pf3","nt_pf5","ntl_pf1","ntl_pf3","ntl_pf5","ntl_row"};
  int K=sizeof f/sizeof*f; double best[16];for(int j=0;j<K;j++)best[j]=1e9;
  for(int r=0;r<9;r++)for(int j=0;j<K;j++){double t=now();f[j](A,B);t=now()-t;if(t<best[j])best[j]=t;}
  double bytes=8.0*(N-2)*(N-2);
  for(int j=0;j<K;j++)printf("%-9s %.2f ms %.1f GB/s counted\n",nm[j],best[j],bytes/best[j]/1e6);
}
