// Generated from ../entries/lazy-scroll-step.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/lazy-scroll-step.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("lazy-scroll-step", "(...a)=>{var __bfEntry=(()=>{var l=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var h=Object.getOwnPropertyNames;var u=Object.prototype.hasOwnProperty;var a=(t,e)=>{for(var o in e)l(t,o,{get:e[o],enumerable:!0})},d=(t,e,o,r)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let n of h(e))!u.call(t,n)&&n!==o&&l(t,n,{get:()=>e[n],enumerable:!(r=c(e,n))||r.enumerable});return t};var g=t=>d(l({},\"__esModule\",{value:!0}),t);var m={};a(m,{default:()=>i});function i(){return window.scrollTo({top:scrollY+innerHeight,behavior:\"instant\"}),{height:document.documentElement.scrollHeight}}return g(m);})();return __bfEntry.default(...a)}");
