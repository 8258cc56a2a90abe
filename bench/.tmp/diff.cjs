const fs=require("fs");const rd=f=>{const m=new Map();for(const l of fs.readFileSync(f,"utf8").split("\n")){const x=/^\s*([\d.]+) (.*)$/.exec(l);if(x&&!m.has(x[2]))m.set(x[2],+x[1]);}return m};
const h=rd("/tmp/p_health.txt"),c=rd("/tmp/p_create.txt");const keys=new Set([...h.keys(),...c.keys()]);
const d=[...keys].map(k=>[k,(c.get(k)??0)-(h.get(k)??0),h.get(k)??0,c.get(k)??0]).sort((a,b)=>b[1]-a[1]);
let s=0;for(const x of d)s+=x[1];console.log("sum diff",s.toFixed(1));
for(const x of d.slice(0,+process.argv[2]||50))console.log(x[1].toFixed(1).padStart(6),x[2].toFixed(1).padStart(6),x[3].toFixed(1).padStart(6),x[0]);
