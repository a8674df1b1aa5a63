#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int sobel_new(const float*in, float*out, int w, int h, const lanes_range*r);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(int argc,char**argv){
  int w=4096,h=2048; long off=atol(argv[1]);
  char*a=aligned_alloc(4096,(size_t)w*h*4+8192);float*A=(float*)(a+off),*B=aligned_alloc(4096,(size_t)w*h*4);
  for(size_t i=0;i<(size_t)w*h;i++){A[i]=(i%97)*0.01f;B[i]=0;}
  lanes_range r={2,{0,0,0},{w,h,1},{64,4,1}};
  printf("A-B mod 4096 = %ld: ",((long)A-(long)B)&4095);
  for(int k=0;k<5;k++){double t=now();sobel_new(A,B,w,h,&r);printf("%.2f ",now()-t);}
  printf("\n");
}
