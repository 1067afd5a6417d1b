import { Module } from '@nestjs/common';

/** Module settings (issue 3, items 8 and 9). */
@Module({})
export class SettingsModule {}
