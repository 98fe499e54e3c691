(function(){
"use strict";
var audio=document.getElementById("recording");
if(audio){
  var items=[].slice.call(document.querySelectorAll(".transcript li[data-from-ms]"));
  document.addEventListener("click",function(e){
    var t=e.target.closest&&e.target.closest("[data-start-ms]");if(!t)return;
    e.preventDefault();audio.currentTime=Number(t.getAttribute("data-start-ms"))/1000;
    var p=audio.play();if(p&&p.catch)p.catch(function(){});
  });
  audio.addEventListener("timeupdate",function(){
    var ms=audio.currentTime*1000,current=null;
    items.forEach(function(li){
      var on=ms>=Number(li.getAttribute("data-from-ms"))&&ms<Number(li.getAttribute("data-to-ms"));
      li.classList.toggle("playing",on);if(on)current=li;
      if(on)li.setAttribute("aria-current","true");else li.removeAttribute("aria-current");
    });
    document.body.setAttribute("data-playing-segment",current?current.id:"");
  });
}
var live=document.getElementById("live-events");
if(live&&window.EventSource){
  var state=document.getElementById("live-state");
  var source=new EventSource("/v1/events?after="+encodeURIComponent(live.getAttribute("data-after")));
  source.onopen=function(){state.textContent="connected";};
  source.onerror=function(){state.textContent="reconnecting…";};
  var show=function(m){
    var e;try{e=JSON.parse(m.data);}catch(x){return;}
    var row=document.createElement("tr");
    [m.lastEventId,e.type,e.session||"",e.occurred_at||""].forEach(function(text,i){
      var cell=document.createElement("td");
      if(i===2&&text){var a=document.createElement("a");a.href="/ui/sessions/"+text;a.textContent=text;a.className="id";cell.appendChild(a);}
      else{cell.textContent=text;}
      row.appendChild(cell);
    });
    live.insertBefore(row,live.firstChild);
    while(live.rows.length>200)live.deleteRow(live.rows.length-1);
  };
  live.getAttribute("data-types").split(" ").forEach(function(type){source.addEventListener(type,show);});
}
})();
