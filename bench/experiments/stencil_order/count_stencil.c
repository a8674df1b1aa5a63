#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int stencil_2d(const float*in, float*out, int w, int h, float alpha, const lanes_range*r);
void stencil_c(const float *in, float *out, int width, int height, float alpha, int lo, int hi);
int main(int argc,char**argv){
  int w=argc>1?atoi(argv[1]):1024, h=argc>2?atoi(argv[2]):256; int which=argc>3?atoi(argv[3]):0;
  float*in=malloc((size_t)w*h*4),*o1=malloc((size_t)w*h*4),*o2=malloc((size_t)w*h*4);
  for(size_t i=0;i<(size_t)w*h;i++)in[i]=(i%97)*0.01f;
  lanes_range r={2,{0,0,0},{w,h,1},{64,4,1}};
  if(which==0||which==2) stencil_2d(in,o1,w,h,0.1f,&r);
  if(which==1||which==2) stencil_c(in,o2,w,h,0.1f,0,h);
  if(which==2){ for(size_t i=0;i<(size_t)w*h;i++) if(fabsf(o1[i]-o2[i])>1e-4f){printf("MISMATCH %zu %f %f\n",i,o1[i],o2[i]);return 1;} printf("ok\n");}
  return 0;
}
