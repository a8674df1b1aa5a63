#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
__attribute__((noinline)) void plain(int nrows,const int*rp,const int*ci,const float*v,const float*x,float*y){
  for(int r=0;r<nrows;r++){float d=0;for(int k=rp[r];k<rp[r+1];k++)d+=v[k]*x[ci[k]];y[r]=d;}
}
/* rows in pairs: both chains while both run, then the longer alone (each row's order kept) */
__attribute__((noinline)) void jam2(int nrows,const int*rp,const int*ci,const float*v,const float*x,float*y){
  for(int r=0;r+1<nrows;r+=2){
    int ka=rp[r],ea=rp[r+1],kb=rp[r+1],eb=rp[r+2];
    float da=0,db=0;
    while(ka<ea && kb<eb){ da+=v[ka]*x[ci[ka]]; db+=v[kb]*x[ci[kb]]; ka++; kb++; }
    for(;ka<ea;ka++) da+=v[ka]*x[ci[ka]];
    for(;kb<eb;kb++) db+=v[kb]*x[ci[kb]];
    y[r]=da;y[r+1]=db;
  }
}
/* lanes a and a+4 of a SIMD group of 8 */
__attribute__((noinline)) void jam4(int nrows,const int*rp,const int*ci,const float*v,const float*x,float*y){
  for(int r=0;r+3<nrows;r+=4){
    int k0=rp[r],e0=rp[r+1],k1=e0,e1=rp[r+2],k2=e1,e2=rp[r+3],k3=e2,e3=rp[r+4];
    float d0=0,d1=0,d2=0,d3=0;
    while(k0<e0&&k1<e1&&k2<e2&&k3<e3){d0+=v[k0]*x[ci[k0]];d1+=v[k1]*x[ci[k1]];d2+=v[k2]*x[ci[k2]];d3+=v[k3]*x[ci[k3]];k0++;k1++;k2++;k3++;}
    for(;k0<e0;k0++) d0+=v[k0]*x[ci[k0]];
    for(;k1<e1;k1++) d1+=v[k1]*x[ci[k1]];
    for(;k2<e2;k2++) d2+=v[k2]*x[ci[k2]];
    for(;k3<e3;k3++) d3+=v[k3]*x[ci[k3]];
    y[r]=d0;y[r+1]=d1;y[r+2]=d2;y[r+3]=d3;
  }
}
static unsigned s=1;static unsigned rnd(void){s=s*1103515245u+12345u;return s>>8;}
int main(){
  int nrows=1<<18,ncols=1<<18;int*rp=malloc(4*(nrows+1));int cap=nrows*49;int*ci=malloc(4*cap);
  rp[0]=0;int n=0;for(int r=0;r<nrows;r++){int len=rnd()%49;for(int i=0;i<len;i++)ci[n++]=rnd()%ncols;rp[r+1]=n;}
  float*v=malloc(4*n),*x=malloc(4*ncols),*y=malloc(4*nrows),*y2=malloc(4*nrows);
  for(int i=0;i<n;i++)v[i]=(rnd()%2000)/1000.0f-1;for(int i=0;i<ncols;i++)x[i]=(rnd()%2000)/1000.0f-1;
  void(*f[3])(int,const int*,const int*,const float*,const float*,float*)={plain,jam2,jam4};
  double best[3]={1e9,1e9,1e9};
  plain(nrows,rp,ci,v,x,y);
  for(int round=0;round<15;round++)for(int j=0;j<3;j++){double t=now();f[j](nrows,rp,ci,v,x,y2);t=now()-t;if(t<best[j])best[j]=t;
     if(memcmp(y,y2,4*nrows)){printf("mismatch %d\n",j);return 1;}}
  printf("nnz %d plain %.2f jam2 %.2f jam4 %.2f ms\n",n,best[0],best[1],best[2]);
}
