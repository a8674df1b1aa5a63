#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int jacobi_2d_step(const float*A, float*B, int n, const lanes_range*r);
int jacobi_2d_step_new(const float*A, float*B, int n, const lanes_range*r);
int jacobi_2d_step_nn(const float*A, float*B, int n, const lanes_range*r);
void jacobi_c(const float *A, float *B, int n, int lo, int hi);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(int argc,char**argv){
  int n=4096; int off=argc>1?atoi(argv[1]):16;
  float*A=(float*)((char*)aligned_alloc(4096,(size_t)n*n*4+4096)+off),*B=(float*)((char*)aligned_alloc(4096,(size_t)n*n*4+4096)+off);
  float*B2=(float*)((char*)aligned_alloc(4096,(size_t)n*n*4+4096)+off);
  for(size_t i=0;i<(size_t)n*n;i++){A[i]=(i%97)*0.01f;B[i]=A[i];B2[i]=A[i];}
  lanes_range r={2,{0,0,0},{n,n,1},{64,4,1}};
  jacobi_2d_step(A,B,n,&r); jacobi_2d_step_new(A,B2,n,&r);
  if(memcmp(B,B2,(size_t)n*n*4)) {printf("MISMATCH\n");return 1;}
  enum{K=4,R=9}; double tm[K][R]; const char*nm[]={"old","new","gcc","new_nont"};
  for(int k=0;k<R;k++)for(int v0=0;v0<K;v0++){int v=(v0+k)%K;double t=now();
   if(v==0)jacobi_2d_step(A,B,n,&r); else if(v==1) jacobi_2d_step_new(A,B,n,&r); else if(v==2) jacobi_c(A,B,n,0,n); else jacobi_2d_step_nn(A,B,n,&r); tm[v][k]=now()-t;}
  for(int v=0;v<K;v++){qsort(tm[v],R,sizeof(double),cmpd);printf("%s median %.2f min %.2f\n",nm[v],tm[v][R/2],tm[v][0]);}
}
