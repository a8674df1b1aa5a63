/* spmv_csr: lanes objects (renamed s_a, s_b) against the plain C row loop,
 * interleaved, thread CPU time, medians; the bench's matrix shape (256K rows,
 * 0-48 nonzeros per row, 256K columns). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
typedef int (*kf)(int, const int*, const int*, const float*, const float*, float*, const lanes_range*);
int s_a(int, const int*, const int*, const float*, const float*, float*, const lanes_range*);
int s_b(int, const int*, const int*, const float*, const float*, float*, const lanes_range*);
__attribute__((noinline)) int plain(int nrows,const int*rp,const int*ci,const float*v,const float*x,float*y,const lanes_range*r){
  (void)r; for(int i=0;i<nrows;i++){float d=0;for(int k=rp[i];k<rp[i+1];k++)d=__builtin_fmaf(v[k],x[ci[k]],d);y[i]=d;} return 0;
}
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static int cmpd(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
static unsigned s=1;static unsigned rnd(void){s=s*1103515245u+12345u;return s>>8;}
int main(int argc,char**argv){
  int maxlen=argc>1?atoi(argv[1]):48;
  int nrows=1<<18,ncols=1<<18;int*rp=malloc(4*(nrows+1));int*ci=malloc(4*(size_t)nrows*49);
  rp[0]=0;int n=0;for(int r=0;r<nrows;r++){int len=rnd()%(maxlen+1);for(int i=0;i<len;i++)ci[n++]=rnd()%ncols;rp[r+1]=n;}
  float*v=malloc(4*(size_t)n),*x=malloc(4*(size_t)ncols),*y=malloc(4*(size_t)nrows),*y2=malloc(4*(size_t)nrows);
  for(int i=0;i<n;i++)v[i]=(rnd()%2000)/1000.0f-1;for(int i=0;i<ncols;i++)x[i]=(rnd()%2000)/1000.0f-1;
  lanes_range rg={1,{0,0,0},{nrows,1,1},{64,1,1}};
  kf f[]={plain,s_a,s_b}; const char*nm[]={"plain","a","b"}; enum{K=3,R=21}; double tm[K][R];
  plain(nrows,rp,ci,v,x,y,&rg);
  for(int k=1;k<K;k++){memset(y2,0,4*(size_t)nrows);f[k](nrows,rp,ci,v,x,y2,&rg);for(int i=0;i<nrows;i++)if(y[i]!=y2[i]){printf("mismatch %s row %d: %g %g\n",nm[k],i,y[i],y2[i]);break;}}
  for(int k=0;k<R;k++)for(int j0=0;j0<K;j0++){int j=(j0+k)%K;double t=now();f[j](nrows,rp,ci,v,x,y2,&rg);tm[j][k]=now()-t;}
  for(int j=0;j<K;j++){qsort(tm[j],R,sizeof(double),cmpd);printf("%-6s median %.2f min %.2f ms\n",nm[j],tm[j][R/2],tm[j][0]);}
  return 0;
}
