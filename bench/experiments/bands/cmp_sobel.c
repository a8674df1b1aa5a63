#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int sobel(const float*in, float*out, int w, int h, const lanes_range*r);
int sobel_new(const float*in, float*out, int w, int h, const lanes_range*r);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(int argc,char**argv){
  int w=4096,h=2048; int off=argc>1?atoi(argv[1]):16;
  float*A=(float*)((char*)aligned_alloc(4096,(size_t)w*h*4+4096)+off),*B=(float*)((char*)aligned_alloc(4096,(size_t)w*h*4+4096)+off);
  float*B2=(float*)((char*)aligned_alloc(4096,(size_t)w*h*4+4096)+off);
  for(size_t i=0;i<(size_t)w*h;i++){A[i]=(i%97)*0.01f;}
  lanes_range r={2,{0,0,0},{w,h,1},{64,4,1}};
  sobel(A,B,w,h,&r); sobel_new(A,B2,w,h,&r);
  if(memcmp(B,B2,(size_t)w*h*4)) {printf("MISMATCH\n");return 1;}
  enum{K=2,R=11}; double tm[K][R]; const char*nm[]={"old","new"};
  for(int k=0;k<R;k++)for(int v0=0;v0<K;v0++){int v=(v0+k)%K;double t=now();
   if(v==0)sobel(A,B,w,h,&r); else sobel_new(A,B,w,h,&r); tm[v][k]=now()-t;}
  for(int v=0;v<K;v++){qsort(tm[v],R,sizeof(double),cmpd);printf("%s median %.2f min %.2f\n",nm[v],tm[v][R/2],tm[v][0]);}
}
