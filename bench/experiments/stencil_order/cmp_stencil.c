#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int stencil_2d(const float*in, float*out, int w, int h, float alpha, const lanes_range*r);
int stencil_b(const float*in, float*out, int w, int h, float alpha, const lanes_range*r);
void stencil_c(const float *in, float *out, int width, int height, float alpha, int lo, int hi);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(int argc,char**argv){
  int n=4096; int off=16; size_t bx=argc>1?atoi(argv[1]):64, by=argc>2?atoi(argv[2]):4;
  float*A=(float*)((char*)aligned_alloc(4096,(size_t)n*n*4+4096)+off),*B=(float*)((char*)aligned_alloc(4096,(size_t)n*n*4+4096)+off);
  for(size_t i=0;i<(size_t)n*n;i++){A[i]=(i%97)*0.01f;B[i]=A[i];}
  lanes_range r={2,{0,0,0},{n,n,1},{64,4,1}};
  lanes_range r2={2,{0,0,0},{n,n,1},{bx,by,1}};
  enum{K=3,R=11}; double tm[K][R]; const char*nm[]={"lanes","lanes_b","gcc"};
  for(int k=0;k<R;k++)for(int v0=0;v0<K;v0++){int v=(v0+k)%K;double t=now();
   if(v==0)stencil_2d(A,B,n,n,0.1f,&r); else if(v==1) stencil_b(A,B,n,n,0.1f,&r2); else stencil_c(A,B,n,n,0.1f,0,n); tm[v][k]=now()-t;}
  for(int v=0;v<K;v++){qsort(tm[v],R,sizeof(double),cmpd);printf("%s median %.2f min %.2f\n",nm[v],tm[v][R/2],tm[v][0]);}
}
