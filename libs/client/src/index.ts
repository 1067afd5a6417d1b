// @flowplane/client: the browser and Node client kit of the platform.
export {};
