#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int transpose(const float*in, float*out, int w, int h, const lanes_range*r);
int transpose_b(const float*in, float*out, int w, int h, const lanes_range*r);
void transpose_c(const float *in, float *out, int width, int height, int lo, int hi);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(int argc,char**argv){
  int w=argc>1?atoi(argv[1]):4096, h=argc>2?atoi(argv[2]):2048; int mode=argc>3?atoi(argv[3]):-1;
  float*A=(float*)((char*)aligned_alloc(4096,(size_t)w*h*4+4096)+16),*B=(float*)((char*)aligned_alloc(4096,(size_t)w*h*4+4096)+16),*C=(float*)((char*)aligned_alloc(4096,(size_t)w*h*4+4096)+16);
  for(size_t i=0;i<(size_t)w*h;i++){A[i]=(i%97)*0.01f;}
  lanes_range r={2,{0,0,0},{w,h,1},{16,16,1}};
  if(mode>=0){ if(mode==0) transpose(A,B,w,h,&r); else if(mode==1) transpose_b(A,B,w,h,&r); else transpose_c(A,B,w,h,0,h); return 0;}
  transpose(A,B,w,h,&r); transpose_b(A,C,w,h,&r); if(memcmp(B,C,(size_t)w*h*4)){printf("MISMATCH\n");return 1;}
  enum{K=3,R=11}; double tm[K][R]; const char*nm[]={"before","rows","gcc"};
  for(int k=0;k<R;k++)for(int v0=0;v0<K;v0++){int v=(v0+k)%K;double t=now();
   if(v==0)transpose(A,B,w,h,&r); else if(v==1) transpose_b(A,B,w,h,&r); else transpose_c(A,B,w,h,0,h); tm[v][k]=now()-t;}
  for(int v=0;v<K;v++){qsort(tm[v],R,sizeof(double),cmpd);printf("%s median %.2f min %.2f\n",nm[v],tm[v][R/2],tm[v][0]);}
}
