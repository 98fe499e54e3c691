(function(){var a=document.getElementById("recording");if(!a)return;document.addEventListener("click",function(e){
var t=e.target.closest&&e.target.closest("[data-start-ms]");if(!t)return;a.currentTime=Number(t.getAttribute("data-start-ms"))/1000;
var p=a.play();if(p&&p.catch)p.catch(function(){});});})();
