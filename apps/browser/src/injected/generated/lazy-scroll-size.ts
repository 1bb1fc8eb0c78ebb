// Generated from ../entries/lazy-scroll-size.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/lazy-scroll-size.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("lazy-scroll-size", "(...a)=>{var __bfEntry=(()=>{var r=Object.defineProperty;var h=Object.getOwnPropertyDescriptor;var o=Object.getOwnPropertyNames;var c=Object.prototype.hasOwnProperty;var m=(t,e)=>{for(var i in e)r(t,i,{get:e[i],enumerable:!0})},g=(t,e,i,l)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let n of o(e))!c.call(t,n)&&n!==i&&r(t,n,{get:()=>e[n],enumerable:!(l=h(e,n))||l.enumerable});return t};var d=t=>g(r({},\"__esModule\",{value:!0}),t);var a={};m(a,{default:()=>u});function u(){return{height:document.documentElement?.scrollHeight??0,view:innerHeight}}return d(a);})();return __bfEntry.default(...a)}");
