#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
typedef int (*kf)(const float*, float*, int, const lanes_range*);
int j_base(const float*, float*, int, const lanes_range*);
int j_rows(const float*, float*, int, const lanes_range*);
int j_mv(const float*, float*, int, const lanes_range*);
int j_x(const float*, float*, int, const lanes_range*);
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(int argc,char**argv){
  int n=4096; size_t N=(size_t)n*n;
  float*A=aligned_alloc(64,N*4),*B=aligned_alloc(64,N*4),*B2=aligned_alloc(64,N*4);
  for(size_t i=0;i<N;i++){A[i]=(i%97)*0.01f;B[i]=B2[i]=0;}
  lanes_range r={2,{0,0,0},{n,n,1},{64,4,1}};
  kf f[]={j_base,j_rows,j_mv,j_x}; const char*nm[]={"base","rows","mv","x"}; enum{K=4,R=15}; double tm[K][R];
  j_base(A,B,n,&r); for(int v=1;v<K;v++){memset(B2,0,N*4);f[v](A,B2,n,&r); if(memcmp(B,B2,N*4)){printf("mismatch %s\n",nm[v]);}}
  for(int k=0;k<R;k++)for(int v0=0;v0<K;v0++){int v=(v0+k)%K;double t=now();f[v](A,B,n,&r);tm[v][k]=now()-t;}
  for(int v=0;v<K;v++){qsort(tm[v],R,sizeof(double),cmpd);printf("%-5s median %.2f min %.2f\n",nm[v],tm[v][R/2],tm[v][0]);}
}
