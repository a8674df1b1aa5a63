"""Instructions executed per address of one function, from a callgrind
output written with --dump-instr=yes (compressed names and relative
positions), next to the function's disassembly (objdump -d of a -no-pie
binary): one line per instruction executed, `count address: instruction`.

    python3 callgrind_by_address.py CALLGRIND_OUT BINARY FUNCTION
"""
import sys,re,subprocess,collections
f=sys.argv[1]; binary=sys.argv[2]; fn=sys.argv[3]
cnt=collections.Counter(); names={}
addr=0; infn=False; incall=False
for line in open(f):
    line=line.rstrip('\n')
    if line.startswith('fn='):
        m=re.match(r'fn=\((\d+)\)(.*)',line)
        if m and m.group(2).strip(): names[m.group(1)]=m.group(2).strip()
        infn = m is not None and fn in names.get(m.group(1),''); continue
    if line.startswith('cfn='):
        m=re.match(r'cfn=\((\d+)\)(.*)',line)
        if m and m.group(2).strip(): names[m.group(1)]=m.group(2).strip()
        continue
    if line.startswith(('calls=',)):
        incall=True; continue
    if not line or not (line[0].isdigit() or line[0] in '+-*'): 
        continue
    parts=line.split()
    p=parts[0]
    if p.startswith('0x'): addr=int(p,16)
    elif p.startswith('+'): addr+=int(p[1:],0)
    elif p.startswith('-'): addr-=int(p[1:],0)
    elif p=='*': pass
    if incall: incall=False; continue
    if infn and len(parts)>2: cnt[addr]+=int(parts[2])
dis=subprocess.run(['objdump','-d','--no-show-raw-insn',binary],capture_output=True,text=True).stdout
out=[]
cur=None
for l in dis.splitlines():
    m=re.match(r'\s*([0-9a-f]+):\s*(.*)',l)
    if m:
        a=int(m.group(1),16)
        if a in cnt or cur: pass
        print(f"{cnt.get(a,0):>10} {m.group(1)}: {m.group(2)}") if cnt.get(a,0) or (fn in (cur or '')) else None
    else:
        m2=re.match(r'[0-9a-f]+ <(.*)>:',l)
        if m2: cur=m2.group(1)
